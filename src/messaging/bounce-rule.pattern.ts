import safeRegex from 'safe-regex2';

/*
 * Bounce rules are written as PHP/PCRE patterns with delimiters (`/mailbox is full/i`), as phpList stores them.
 * This module turns one into a JavaScript RegExp, refusing what JavaScript would read differently and what could
 * backtrack exponentially; bounce processing matches with `matchesBounceRule`, which also caps the input.
 */

export const MAX_PATTERN_LENGTH = 500;
/** Bounce text beyond this many characters is not searched: a bound on the cost of every match. */
export const MAX_MATCH_INPUT = 20_000;

export class BounceRulePatternError extends Error {}

const INVALID = 'Invalid regular expression pattern.';
const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
/** Characters that mean something in a JavaScript pattern, so an escaped delimiter among them stays escaped. */
const META = new Set([...'\\^$.|?*+()[]{}/-']);
/** Letter escapes JavaScript understands (outside the `u` flag `\p`/`\P` would silently be letters). */
const JS_LETTER_ESCAPES = new Set([...'dDwWsSbBnrtfvcxuk']);

/** Compiles a delimited PCRE pattern with flags `i m s x u`; throws BounceRulePatternError saying what is wrong. */
export function compileBounceRule(regex: string): RegExp {
  const pattern = regex.trim();
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new BounceRulePatternError(`The pattern is too long. It should have ${MAX_PATTERN_LENGTH} characters or less.`);
  }
  const { body, flags } = splitDelimited(pattern);
  for (const flag of flags) {
    if (!'imsxu'.includes(flag)) throw new BounceRulePatternError(`Unsupported flag "${flag}": use i, m, s, x or u.`);
  }
  const source = translate(flags.includes('x') ? stripExtended(body) : body, pattern[0]!, flags.includes('u'));
  let compiled: RegExp;
  try {
    compiled = new RegExp(source, [...new Set(flags.replace('x', ''))].join(''));
  } catch {
    throw new BounceRulePatternError(INVALID);
  }
  // safe-regex2's parser knows no lookbehind; for counting nested quantifiers a plain group is the same.
  if (!safeRegex(compiled.source.replace(/\(\?<([=!])/g, '(?:'))) {
    throw new BounceRulePatternError('The pattern could take exponential time (nested or overlapping quantifiers); simplify it.');
  }
  return compiled;
}

/** Whether the rule matches the bounce text (its first MAX_MATCH_INPUT characters). */
export function matchesBounceRule(rule: RegExp, text: string): boolean {
  rule.lastIndex = 0;
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
 * PCRE → JavaScript for what differs: `\A`, `\z`, `\Z`, `\e`, `\a`, `(?P<name>`, `(?#…)`, an escaped delimiter.
 * Other PCRE-only escapes (`\G`, `\K`, `\Q…\E`, `\h`, `\R` …) would be read by JavaScript as plain letters, so they
 * are refused; PCRE-only groups and quantifiers (`(?>`, `a++`) make the RegExp constructor throw.
 */
function translate(body: string, delimiter: string, unicode: boolean): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      const next = body[i + 1];
      i++;
      if (next === undefined) throw new BounceRulePatternError(INVALID);
      if (next === delimiter && !META.has(next)) out += next;
      else if (/[A-Za-z]/.test(next)) out += letterEscape(next, inClass, unicode);
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
      // A `]` right after `[` or `[^` is a literal in PCRE; JavaScript needs it escaped.
      if (body[i + 1] === '^') {
        out += '^';
        i++;
      }
      if (body[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && body.startsWith('(?#', i)) {
      const end = body.indexOf(')', i);
      if (end < 0) throw new BounceRulePatternError(INVALID);
      i = end;
      continue;
    }
    if (c === '(' && body.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    out += c;
  }
  return out;
}

function letterEscape(letter: string, inClass: boolean, unicode: boolean): string {
  if (JS_LETTER_ESCAPES.has(letter) || (unicode && (letter === 'p' || letter === 'P'))) return `\\${letter}`;
  if (letter === 'e') return '\\x1b';
  if (letter === 'a') return '\\x07';
  if (!inClass && letter === 'A') return '(?<![\\s\\S])';
  if (!inClass && letter === 'z') return '(?![\\s\\S])';
  if (!inClass && letter === 'Z') return '(?=\\n?(?![\\s\\S]))';
  throw new BounceRulePatternError(`Unsupported escape "\\${letter}": JavaScript has no equivalent.`);
}
