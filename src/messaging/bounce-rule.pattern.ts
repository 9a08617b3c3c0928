import { Script, createContext } from 'node:vm';
import { RE2JS, RE2JSException } from 're2js';

/*
 * Bounce rules are written as PHP/PCRE patterns with delimiters (`/mailbox is full/i`), as phpList stores them.
 * This module compiles one for RE2JS, a JavaScript port of RE2: matching takes time linear in the text whatever
 * the pattern, so no rule can block the server (issue 17: `/(a|a)+$/` on 28 `a`s and a `!` took 6 s in the
 * backtracking engine, although safe-regex2 had let it through). The accepted syntax is RE2's (PCRE's without
 * backreferences, lookaround, atomic groups, possessive quantifiers, recursion and conditionals); docs/api.md lists
 * it. Bounce processing matches with `matchesBounceRule`, which also caps the input.
 */

export const MAX_PATTERN_LENGTH = 500;
/**
 * Instructions the compiled program may have (issue 23). RE2 is linear in the text, but the factor is the program:
 * `(?:a|aa|aaa|aaaa|aaaaa){1,1000}!` compiles to 14,002 and took 14 s on 20 KB. Ordinary rules have tens; a
 * counted repetition multiplies its body, so this is where `{1,1000}` of anything but a character stops.
 */
export const MAX_PROGRAM_SIZE = 1000;
/** Bounce text beyond this many characters is not searched: a bound on the cost of every match. */
export const MAX_MATCH_INPUT = 20_000;

export class BounceRulePatternError extends Error {}

/** A compiled rule (RE2JS). */
export type BounceRulePattern = RE2JS;

const INVALID = 'Invalid regular expression pattern.';
const BACKREFERENCE = 'Backreferences (\\1, \\k<name>, \\g) are not supported: bounce rules run in a linear-time engine (RE2).';
const LOOKAROUND = 'Lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported: bounce rules run in a linear-time engine (RE2).';
const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
/** Characters that mean something in a pattern, so an escaped delimiter among them stays escaped. */
const META = new Set([...'\\^$.|?*+()[]{}/-']);
const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0, x: 0 };

/** Compiles a delimited PCRE pattern with flags `i m s x u`; throws BounceRulePatternError saying what is wrong. */
export function compileBounceRule(regex: string): BounceRulePattern {
  const pattern = regex.trim();
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new BounceRulePatternError(`The pattern is too long. It should have ${MAX_PATTERN_LENGTH} characters or less.`);
  }
  const { body, flags } = splitDelimited(pattern);
  let bits = 0;
  for (const flag of flags) {
    if (!(flag in FLAGS)) throw new BounceRulePatternError(`Unsupported flag "${flag}": use i, m, s, x or u.`);
    bits |= FLAGS[flag]!;
  }
  const source = translate(flags.includes('x') ? stripExtended(body) : body, pattern[0]!);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, bits);
  } catch (err) {
    if (!(err instanceof RE2JSException)) throw err;
    // RE2's own words name the construct: "invalid escape sequence: `\G`".
    const reason = err.message.replace(/^error parsing regexp: /, '');
    throw new BounceRulePatternError(`Invalid regular expression pattern: ${reason}.`);
  }
  const size = compiled.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    throw new BounceRulePatternError(
      `The pattern is too complex: it compiles to ${size} instructions, more than ${MAX_PROGRAM_SIZE}. ` +
        'A counted repetition such as {1,1000} repeats its whole group; use + or * or a smaller count.',
    );
  }
  return compiled;
}

/** The matching ran past its deadline (bounce processing: BOUNCE_READ_TIMEOUT_MS). */
export class BounceRuleTimeoutError extends Error {}

// RE2JS matches synchronously, so a timer cannot stop it; node:vm's timeout interrupts whatever runs inside
// `run()`, the matcher included (about 75 µs a call for its watchdog: once per bounce, not per rule).
const bounded = new Script('run()');
const sandbox = createContext({ run: null as (() => unknown) | null });

/** Runs `fn` (synchronous) and throws BounceRuleTimeoutError when it takes more than `timeoutMs`. */
export function withinDeadline<T>(timeoutMs: number, fn: () => T): T {
  sandbox['run'] = fn;
  try {
    return bounded.runInContext(sandbox, { timeout: Math.max(1, Math.floor(timeoutMs)) }) as T;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new BounceRuleTimeoutError(`Matching the bounce rules took more than ${timeoutMs} ms.`);
    }
    throw err;
  } finally {
    sandbox['run'] = null;
  }
}

/** Whether the rule matches the bounce text (its first MAX_MATCH_INPUT characters). */
export function matchesBounceRule(rule: BounceRulePattern, text: string): boolean {
  return rule.test(text.length > MAX_MATCH_INPUT ? text.slice(0, MAX_MATCH_INPUT) : text);
}

/** PCRE's delimiter rules: any non-alphanumeric, non-backslash, non-space character; brackets close with their pair. */
function splitDelimited(pattern: string): { body: string; flags: string } {
  const open = pattern[0];
  if (!open || /[A-Za-z0-9\\\s]/.test(open)) throw new BounceRulePatternError(INVALID);
  const close = CLOSING[open] ?? open;
  let depth = 0;
  for (let i = 1; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === close && depth === 0) return { body: pattern.slice(1, i), flags: pattern.slice(i + 1) };
    if (close !== open) {
      if (c === open) depth++;
      else if (c === close) depth--;
    }
  }
  throw new BounceRulePatternError(INVALID);
}

/** The `x` flag: unescaped white space and `#` comments outside character classes are not part of the pattern. */
function stripExtended(body: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      out += c + (body[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '#') {
      while (i < body.length && body[i] !== '\n') i++;
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

/**
 * PCRE → RE2 for what differs: `\Z`, `\e`, `(?#…)` and an escaped delimiter are rewritten; backreferences and
 * lookaround are refused with a message of their own (RE2's would be cryptic). Everything else RE2 reads itself
 * (`\A`, `\z`, `\Q…\E`, `(?P<name>`, `\p{L}`, inline flags) or refuses with its own reason.
 */
function translate(body: string, delimiter: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      const next = body[i + 1];
      i++;
      if (next === undefined) throw new BounceRulePatternError(INVALID);
      if (next === delimiter && !META.has(next)) out += next;
      else if (!inClass && /[1-9kg]/.test(next)) throw new BounceRulePatternError(BACKREFERENCE);
      else if (next === 'e') out += '\\x1b';
      // PCRE's \Z: the end, or before a final newline. Only whether a rule matches counts, so it may consume it.
      else if (!inClass && next === 'Z') out += '(?:\\n?\\z)';
      else out += `\\${next}`;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // A `]` right after `[` or `[^` is a literal in PCRE and RE2 alike: copied so the loop does not end the class.
      if (body[i + 1] === '^') {
        out += '^';
        i++;
      }
      if (body[i + 1] === ']') {
        out += ']';
        i++;
      }
      continue;
    }
    if (c === '(' && /^\(\?(=|!|<=|<!)/.test(body.slice(i, i + 4))) throw new BounceRulePatternError(LOOKAROUND);
    if (c === '(' && body.startsWith('(?#', i)) {
      const end = body.indexOf(')', i);
      if (end < 0) throw new BounceRulePatternError(INVALID);
      i = end;
      continue;
    }
    out += c;
  }
  return out;
}

/** Where a rule first matches a bounce text, in the part bounce processing searches (MAX_MATCH_INPUT characters). */
export function findBounceRuleMatch(rule: BounceRulePattern, text: string): { start: number; end: number } | null {
  const matcher = rule.matcher(text.length > MAX_MATCH_INPUT ? text.slice(0, MAX_MATCH_INPUT) : text);
  return matcher.find() ? { start: matcher.start(), end: matcher.end() } : null;
}
