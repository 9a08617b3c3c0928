import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS with a default export; under NodeNext the callable sits on `.default`.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/*
 * Two validators. Bodies are JSON and must carry the right JSON types: a string where a boolean belongs is a 422 on
 * that field, never coerced (../shared/api/DECISIONS.md § Errors). Query strings and path parameters are text by
 * nature, so they are coerced to the declared types.
 */
function createAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    useDefaults: true,
    removeAdditional: true,
    strict: false,
    ...options,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  return ajv;
}

const bodyAjv = createAjv({ coerceTypes: false });
const textAjv = createAjv({ coerceTypes: 'array' });

/** The validator of one part of a route's request (body, query string, path parameters or headers). */
export function compileValidator(schema: object, httpPart: string | undefined): ValidateFunction {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  const validate = ajv.compile(schema);
  if (httpPart !== 'params') return validate;
  return digitsOnlyIds(schema as ObjectSchema, validate);
}

interface ObjectSchema {
  properties?: Record<string, { type?: unknown }>;
}

const DIGITS = /^\d{1,20}$/;

/**
 * Integer path parameters are digits only, for every route (phpList's `\d+` requirement). Coercion alone would
 * read `1.0`, `+1`, `1e0`, ` 1` or `0x1` as 1 (and `0x10` as 16), so `DELETE /lists/0x1` would delete list 1.
 * The failure is a params validation error, which the error handler answers as an unknown route (404).
 */
function digitsOnlyIds(schema: ObjectSchema, validate: ValidateFunction): ValidateFunction {
  const names = Object.entries(schema.properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
  if (names.length === 0) return validate;
  const wrapped = ((data: Record<string, unknown>) => {
    for (const name of names) {
      const value = data[name];
      if (typeof value === 'string' && !DIGITS.test(value)) {
        wrapped.errors = [
          { keyword: 'pattern', instancePath: `/${name}`, schemaPath: '#/digits', params: { pattern: '^\\d+$' }, message: 'digits only' },
        ];
        return false;
      }
    }
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return wrapped;
}

/** Turns validator errors into `{ "<field path>": ["<plain message>"] }`, field paths as the request names them. */
export function formatValidationErrors(errors: readonly ErrorObject[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const typeErrorAt = new Set<string>();
  const specificErrorAt = new Set<string>();
  for (const error of errors) {
    const wantsNull = (error.params as { type?: string }).type === 'null';
    if (error.keyword === 'type' && !wantsNull) typeErrorAt.add(error.instancePath);
    if (error.keyword !== 'anyOf' && !(error.keyword === 'type' && wantsNull)) specificErrorAt.add(error.instancePath);
  }
  for (const error of errors) {
    // A union reports one error per branch and one for itself; the type error alone says it best.
    // A union's own error adds nothing to what one of its branches said; an enum nothing to a type error.
    if (error.keyword === 'anyOf' && [...specificErrorAt].some((at) => at === error.instancePath || at.startsWith(`${error.instancePath}/`))) {
      continue;
    }
    if (error.keyword === 'enum' && typeErrorAt.has(error.instancePath)) continue;
    // Inside a Nullable(), the branch that wanted null adds nothing the other branch's error does not say.
    if (error.keyword === 'type' && (error.params as { type?: string }).type === 'null') continue;
    let path = toFieldPath(error.instancePath);
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      path = path ? `${path}.${missing}` : missing;
    }
    const key = path || '_global';
    const message = messageFor(error);
    const list = (out[key] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return out;
}

/** `/content/subject` → `content.subject`; `/emails/0` → `emails[0]`. */
function toFieldPath(instancePath: string): string {
  if (!instancePath) return '';
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function messageFor(error: ErrorObject): string {
  const custom = (error.parentSchema as { errorMessage?: string } | undefined)?.errorMessage;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'This value should not be blank.';
    case 'type':
      if (error.data === null) return 'This value should not be null.';
      return `This value should be of type ${String(params.type).replace(',null', '')}.`;
    case 'minLength':
      if (params.limit === 1) return 'This value should not be blank.';
      return `This value is too short. It should have ${String(params.limit)} characters or more.`;
    case 'maxLength':
      return `This value is too long. It should have ${String(params.limit)} characters or less.`;
    case 'pattern':
      if (custom) return custom;
      if (error.schema === '\\S') return 'This value should not be blank.';
      return 'This value is not valid.';
    case 'format':
      if (custom) return custom;
      if (params.format === 'date-time') return 'This value is not a valid datetime.';
      if (params.format === 'email') return 'This value is not a valid email address.';
      return `This value is not a valid ${String(params.format)}.`;
    case 'enum':
    case 'const':
      return custom ?? 'The value you selected is not a valid choice.';
    case 'anyOf':
      return custom ?? 'This value is not valid.';
    case 'minimum':
      return params.limit === 1 || params.limit === 0
        ? `This value should be ${params.limit === 1 ? 'positive' : 'either positive or zero'}.`
        : `This value should be greater than or equal to ${String(params.limit)}.`;
    case 'maximum':
      return `This value should be less than or equal to ${String(params.limit)}.`;
    case 'minItems':
      return `This collection should contain ${String(params.limit)} element or more.`;
    case 'maxItems':
      return `This collection should contain ${String(params.limit)} elements or less.`;
    case 'additionalProperties':
      return `The field "${String(params.additionalProperty)}" is not allowed.`;
    default:
      return custom ?? error.message ?? 'This value is not valid.';
  }
}
