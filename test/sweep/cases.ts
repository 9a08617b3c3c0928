import type { InjectOptions } from 'fastify';

/*
 * The bad-input sweep's cases, generated from the OpenAPI document (docs/openapi.json): for every operation, requests
 * whose body, query and path carry each kind of bad input. Pure: no app, no database.
 */

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  format?: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema?: Schema;
}

export interface Operation {
  method: string;
  path: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
}

export interface SweepCase {
  /** Operation and kind of bad input, for the report. */
  label: string;
  request: Pick<InjectOptions, 'method' | 'url' | 'payload'> & { headers: Record<string, string> };
}

/** The operations of an OpenAPI document, DELETEs last so the rows other cases use are there while they run. */
export function operationsOf(document: { paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>> }): Operation[] {
  const out: Operation[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) out.push({ ...operation, method: method.toUpperCase(), path });
  }
  return out.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

const MB_STRING = 'x'.repeat(1_000_000);

/** A string each kind of bad input puts where a string belongs (`format` lets the plain case stay plausible). */
const STRINGS: Record<string, (schema: Schema) => string> = {
  plain: (s) => (s.format === 'email' ? 'sweep@example.com' : s.format === 'date-time' ? '2026-01-01T00:00:00+00:00' : 'sweep'),
  nul: () => 'a\u0000b',
  control: () => 'a\u0001\u0008\u001b[2J\u007f\u0085\u2028\u202e\ud800b',
  'header-injection': (s) =>
    s.format === 'email' ? 'a@example.com\r\nBcc: victim@example.net' : 'x\r\nBcc: victim@example.net\r\nX-Injected: yes\r\n\r\nbody',
  unicode: () => '😀 ⁦‮ÿ\uFEFF',
};

/** A value of the schema's shape whose strings come from `text`. */
export function sample(schema: Schema | undefined, text: (schema: Schema) => string, depth = 0): unknown {
  if (!schema || depth > 5) return 'x';
  if (schema.anyOf) return sample(schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0], text, depth);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (schema.enum && type !== 'string') return schema.enum[0];
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(schema.properties ?? {})) out[key] = sample(inner, text, depth + 1);
      return out;
    }
    case 'array':
      return [sample(schema.items, text, depth + 1)];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return text(schema);
  }
}

/** Every declared field given a value of another JSON type. */
export function wrongTypes(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 5) return 12345;
  if (schema.anyOf)
    return wrongTypes(
      schema.anyOf.find((s) => s.type !== 'null'),
      depth,
    );
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(schema.properties ?? {})) out[key] = wrongTypes(inner, depth + 1);
      return out;
    }
    case 'array':
      return { 0: 'not an array' };
    case 'string':
      return { not: 'a string' };
    case 'integer':
    case 'number':
      return '1';
    case 'boolean':
      return 'yes';
    default:
      return [null];
  }
}

/** One huge string in the first string field (the body stays under the 1 MiB body limit), the rest plain. */
function oneHugeString(): (schema: Schema) => string {
  let used = false;
  return (schema) => {
    if (used) return STRINGS.plain!(schema);
    used = true;
    return MB_STRING;
  };
}

const ODD_IDS = ['1.0', '%2B1', '0x1', '1e0', '-1', '%201', '99999999999999999999', 'abc', '%00', '%E2%80%AE1', 'x'.repeat(600)];
const ODD_TEXT_PARAMS = ['%00', '%01%7F', '%0D%0ABcc:%20x@example.net', '%E2%80%AE', 'x'.repeat(600), '..%2F..%2Fetc%2Fpasswd'];

function jsonSchemaOf(operation: Operation): Schema | undefined {
  const content = operation.requestBody?.content ?? {};
  return content['application/json']?.schema ?? Object.values(content)[0]?.schema;
}

function urlOf(operation: Operation, ids: Record<string, string>, override: Record<string, string> = {}, query = ''): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_m, name: string) => override[name] ?? ids[name] ?? '1');
  return query ? `${path}?${query}` : path;
}

/** Percent-encoding; a lone surrogate (which has no UTF-8 form) is sent as the bytes of one, invalid UTF-8. */
function encode(value: string): string {
  return value
    .split(/([\ud800-\udfff])/)
    .map((part) => (/^[\ud800-\udfff]$/.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');
}

function queryOf(operation: Operation, text: (schema: Schema) => string): string {
  const params = (operation.parameters ?? []).filter((p) => p.in === 'query');
  return params.map((p) => `${encode(p.name)}=${encode(String(sample(p.schema, text)))}`).join('&');
}

/**
 * The cases of one operation. `ids` fills path parameters with rows that exist (so a case reaches past the 404);
 * every case is sent once with `auth` headers and once without.
 */
export function casesOf(operation: Operation, ids: Record<string, string>, auth: Record<string, string>): SweepCase[] {
  const name = `${operation.method} ${operation.path}`;
  const withBody = operation.method !== 'GET' && operation.method !== 'HEAD';
  const schema = jsonSchemaOf(operation);
  const json = { 'content-type': 'application/json' };
  const raw: { kind: string; url: string; payload?: string; headers?: Record<string, string> }[] = [];

  for (const [kind, text] of Object.entries(STRINGS)) {
    raw.push({
      kind: `${kind} strings`,
      url: urlOf(operation, ids, {}, queryOf(operation, text)),
      ...(withBody ? { payload: JSON.stringify(sample(schema, text) ?? {}), headers: json } : {}),
    });
  }
  const huge = oneHugeString();
  raw.push({
    kind: '1 MB string',
    url: urlOf(operation, ids, {}, queryOf(operation, oneHugeString())),
    ...(withBody ? { payload: JSON.stringify(sample(schema, huge) ?? {}), headers: json } : {}),
  });
  const repeated = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => `${p.name}=1&${p.name}=x&${p.name}[0]=y&${p.name}[k]=z`);
  if (repeated.length > 0) raw.push({ kind: 'repeated and bracketed query parameters', url: urlOf(operation, ids, {}, repeated.join('&')) });

  if (withBody) {
    const url = urlOf(operation, ids);
    raw.push({ kind: 'no body', url });
    raw.push({ kind: 'missing fields', url, payload: '{}', headers: json });
    raw.push({ kind: 'wrong types', url, payload: JSON.stringify(wrongTypes(schema) ?? {}), headers: json });
    for (const top of ['[1,2]', '"text"', '42', 'null', 'true']) raw.push({ kind: `top-level ${top}`, url, payload: top, headers: json });
    raw.push({ kind: 'deep nesting (arrays)', url, payload: `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`, headers: json });
    raw.push({ kind: 'deep nesting (objects)', url, payload: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, headers: json });
    raw.push({ kind: 'invalid JSON', url, payload: '{"a": tru', headers: json });
    raw.push({ kind: 'XML', url, payload: '<?xml version="1.0"?><a>1</a>', headers: { 'content-type': 'application/xml' } });
    raw.push({ kind: 'form', url, payload: 'a=1&b[]=2&%00=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    raw.push({
      kind: 'broken multipart',
      url,
      payload: '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    raw.push({ kind: 'multipart without boundary', url, payload: 'abc', headers: { 'content-type': 'multipart/form-data' } });
    for (const kind of ['nul', 'control', 'header-injection'] as const) {
      const fields = Object.keys(schema?.properties ?? {});
      const names = fields.length > 0 ? fields : ['description', 'title', 'list_id', 'update_existing'];
      const text = STRINGS[kind]!({});
      const form = multipartBody([
        ...names.map((n) => ({ name: n, value: text })),
        { name: 'file', filename: `${text}.csv`, value: `email\n${text}@example.com\n` },
      ]);
      raw.push({ kind: `multipart with ${kind} fields`, url, payload: form.payload, headers: form.headers });
    }
    raw.push({ kind: 'binary', url, payload: '\u0000\u00ff\u0001binary', headers: { 'content-type': 'application/octet-stream' } });
  }

  const pathParams = (operation.parameters ?? []).filter((p) => p.in === 'path');
  for (const param of pathParams) {
    const odd = param.schema?.type === 'integer' ? ODD_IDS : ODD_TEXT_PARAMS;
    for (const value of odd) raw.push({ kind: `path ${param.name}=${value.slice(0, 30)}`, url: urlOf(operation, ids, { [param.name]: value }) });
  }

  return raw.flatMap(({ kind, url, payload, headers }) =>
    [true, false].map((authenticated) => ({
      label: `${name} [${kind}${authenticated ? '' : ', anonymous'}]`,
      request: {
        method: operation.method as SweepCase['request']['method'],
        url,
        ...(payload !== undefined ? { payload } : {}),
        headers: { ...(headers ?? {}), ...(authenticated ? auth : {}) },
      },
    })),
  );
}

/** A well-formed multipart/form-data body; a part with `filename` is a file part. */
function multipartBody(parts: { name: string; value: string; filename?: string }[]): { payload: string; headers: Record<string, string> } {
  const boundary = 'sweep-boundary-7d1f';
  const body = parts
    .map((p) => {
      const file = p.filename === undefined ? '' : `; filename="${p.filename.replace(/["\r\n]/g, '_')}"\r\nContent-Type: text/csv`;
      return `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${file}\r\n\r\n${p.value}\r\n`;
    })
    .join('');
  return { payload: `${body}--${boundary}--\r\n`, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
