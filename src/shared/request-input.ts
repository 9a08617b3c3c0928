import secureJson from 'secure-json-parse';
import { BadRequestError } from './errors.js';

/*
 * How request input is read before validation (plugins/http.ts wires these in): JSON bodies, PHP-style query
 * arrays, and the check for NUL characters. Pure functions over the raw input, so each rule is stated once.
 */

/** Deeper bodies are refused before parsing: no phpList body nests more than 3 levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * A JSON body as phpList reads it: empty or `0` is `{}`, `[]` is `{}`. Refuses nesting deeper than MAX_JSON_DEPTH
 * (walking such a body, in key conversion or validation, would overflow the stack) and drops `__proto__` keys and
 * `constructor.prototype` (prototype poisoning), as Fastify's own parser does.
 */
export function parseJsonBody(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '0') return {};
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new BadRequestError(`Invalid JSON: nested deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch (err) {
    throw new BadRequestError(`Invalid JSON: ${(err as Error).message}`);
  }
  return Array.isArray(value) && value.length === 0 ? {} : value;
}

/** One pass over the text, counting brackets outside strings; stops at the first level too deep. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** `loginName` → `login_name`; other keys unchanged. */
export function snakeName(key: string): string {
  return /^[a-z][a-zA-Z0-9]*$/.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key;
}

/**
 * Renames camelCase keys to snake_case, in nested objects too, unless the snake_case key is also present.
 * Recursion stops at MAX_JSON_DEPTH, so no input (JSON is bounded before, but bodies from other parsers are not)
 * can exhaust the stack; deeper objects keep their keys.
 */
export function snakeKeys(value: Record<string, unknown>, depth = 1): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const snake = snakeName(key);
    const target = snake !== key && snake in value ? key : snake;
    const converted = isPlainObject(inner) && depth < MAX_JSON_DEPTH ? snakeKeys(inner, depth + 1) : inner;
    // defineProperty, not assignment: a key named `__proto__` (from a parser other than ours) stays a plain key.
    Object.defineProperty(out, target, { value: converted, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const PHP_ARRAY_KEY = /^([^[\]]+)\[(\d{0,9})\]$/;

/**
 * PHP clients write query arrays as `emails[]=a&emails[]=b` or `emails[0]=a&emails[1]=b`; both become
 * `emails: ['a', 'b']` (indexed items in index order, then `[]` items in the order sent). A plain `emails=c`
 * sent beside them joins the list. Only names the route declares as arrays are folded: `u[]=…` where a single
 * value is expected stays an unknown key, as in PHP, where such a value is an array and not the string.
 */
export function foldPhpArrays(query: Record<string, unknown>, arrayNames: ReadonlySet<string>): void {
  const folded = new Map<string, { indexed: [number, unknown][]; appended: unknown[] }>();
  for (const key of Object.keys(query)) {
    const match = PHP_ARRAY_KEY.exec(key);
    if (!match) continue;
    const name = match[1]!;
    if (!arrayNames.has(name)) continue;
    const entry = folded.get(name) ?? { indexed: [], appended: [] };
    folded.set(name, entry);
    const values = [query[key]].flat();
    if (match[2] === '') entry.appended.push(...values);
    else entry.indexed.push(...values.map((v): [number, unknown] => [Number(match[2]), v]));
    delete query[key];
  }
  for (const [name, { indexed, appended }] of folded) {
    const items = [...indexed.sort((a, b) => a[0] - b[0]).map(([, v]) => v), ...appended];
    const plain = query[name] === undefined ? [] : [query[name]].flat();
    query[name] = [...items, ...plain];
  }
}

/**
 * The path (as validation errors name fields: `content.subject`, `emails[0]`) of the first string or key holding
 * a NUL character, or null. PostgreSQL cannot store NUL in text, so such input is refused where it is read.
 * Iterative, so a deep value cannot exhaust the stack.
 */
export function findNul(value: unknown, root = ''): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\0')) return path;
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], `${path}[${i}]`]);
    } else if (isPlainObject(current)) {
      for (const [key, inner] of Object.entries(current).reverse()) {
        const at = path ? `${path}.${key}` : key;
        if (key.includes('\0')) return at;
        stack.push([inner, at]);
      }
    }
  }
  return null;
}
