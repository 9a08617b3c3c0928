import type { AppContext } from '../context.js';
import { ConflictError, NotFoundError, TooManyRequestsError, ValidationError } from '../shared/errors.js';
import { takeStrict } from '../shared/rate-limit.js';
import { invalidateBounceRules } from './bounce-processing.js';
import {
  BounceRulePatternError,
  BounceRuleTimeoutError,
  compileBounceRule,
  findBounceRuleMatch,
  MAX_MATCH_INPUT,
  withinDeadline,
} from './bounce-rule.pattern.js';
import { DEFAULT_READ_TIMEOUT_MS } from './dsn.js';
import * as repo from './bounce-rule.repository.js';
import type { BounceRegex, BounceRegexBody, BounceRuleTestBody, BounceRuleTestResult } from './bounce-rule.schemas.js';

export const RULE_NOT_FOUND = 'Bounce regex not found.';
const REGEX_TAKEN = 'A bounce rule with this regex already exists.';

export async function requireRule(ctx: AppContext, id: number): Promise<repo.BounceRuleRow> {
  const row = await repo.findRule(ctx.db, id);
  if (!row) throw new NotFoundError(RULE_NOT_FOUND);
  return row;
}

export async function listRules(ctx: AppContext): Promise<BounceRegex[]> {
  return (await repo.listRules(ctx.db)).map(repo.toBounceRegex);
}

export async function getRule(ctx: AppContext, id: number): Promise<BounceRegex> {
  return repo.toBounceRegex(await requireRule(ctx, id));
}

export async function createRule(ctx: AppContext, body: BounceRegexBody, callerId: number): Promise<BounceRegex> {
  checkPattern(body.regex);
  const values = repo.ruleColumns(body);
  if (await repo.hashTaken(ctx.db, values.regexHash)) throw new ConflictError(REGEX_TAKEN);
  const row = await uniquely(() => repo.insertRule(ctx.db, { ...values, adminId: callerId }));
  invalidateBounceRules();
  return repo.toBounceRegex(row);
}

/** Replaces every field; the creator (`admin_id`) and the match count stay. */
export async function updateRule(ctx: AppContext, id: number, body: BounceRegexBody): Promise<BounceRegex> {
  await requireRule(ctx, id);
  checkPattern(body.regex);
  const values = repo.ruleColumns(body);
  if (await repo.hashTaken(ctx.db, values.regexHash, id)) throw new ConflictError(REGEX_TAKEN);
  const row = await uniquely(() => repo.updateRule(ctx.db, id, values));
  if (!row) throw new NotFoundError(RULE_NOT_FOUND);
  invalidateBounceRules();
  return repo.toBounceRegex(row);
}

export async function deleteRule(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.deleteRule(ctx.db, id))) throw new NotFoundError(RULE_NOT_FOUND);
  invalidateBounceRules();
}

/** Tries an administrator may make per minute: matching is linear, but each try still costs a request's work. */
export const TESTS_PER_MINUTE = 60;
const MAX_SHOWN = 500;
const CONTEXT = 80;

/**
 * "Try this rule": the pattern compiled and matched exactly as bounce processing does (compileBounceRule, the first
 * MAX_MATCH_INPUT characters), so what the console shows is what the processor will do. A pattern RE2 refuses is a
 * 422 at `regex` with the same reason a save would give.
 */
export async function testRule(ctx: AppContext, body: BounceRuleTestBody, callerId: number): Promise<BounceRuleTestResult> {
  const rate = await takeStrict(ctx.db, `bounce-rule-test:${callerId}`, 60, TESTS_PER_MINUTE);
  if (!rate.granted) throw new TooManyRequestsError(`Too many rule tests: at most ${TESTS_PER_MINUTE} a minute.`, rate.retryAfter);
  checkPattern(body.regex);
  const rule = compileBounceRule(body.regex);
  const searched = Math.min(body.text.length, MAX_MATCH_INPUT);
  let found: ReturnType<typeof findBounceRuleMatch>;
  try {
    // Under the deadline bounce processing gives all its rules together (BOUNCE_READ_TIMEOUT_MS).
    found = withinDeadline(ctx.config.bounces.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS, () => findBounceRuleMatch(rule, body.text));
  } catch (err) {
    if (!(err instanceof BounceRuleTimeoutError)) throw err;
    throw ValidationError.field(
      'regex',
      `The pattern took more than ${ctx.config.bounces.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS} ms on this text: bounce processing would cut it off. Make it simpler.`,
    );
  }
  if (!found) return { matches: false, match: null, excerpt: null, searched };
  const matched = body.text.slice(found.start, found.end);
  const before = body.text.slice(Math.max(0, found.start - CONTEXT), found.start);
  const after = body.text.slice(found.end, found.end + CONTEXT);
  return {
    matches: true,
    match: { start: found.start, end: found.end, text: shorten(matched) },
    excerpt: `${found.start > CONTEXT ? '…' : ''}${before}${shorten(matched)}${after}${found.end + CONTEXT < body.text.length ? '…' : ''}`,
    searched,
  };
}

const shorten = (text: string) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);

/** The pattern must compile for the linear-time engine, RE2 (422 at `regex` saying why not). */
function checkPattern(regex: string): void {
  try {
    compileBounceRule(regex);
  } catch (err) {
    if (err instanceof BounceRulePatternError) throw ValidationError.field('regex', err.message);
    throw err;
  }
}

/** Two writers with one regex at once: the unique index on its hash settles it. */
async function uniquely<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const code = (err as { code?: unknown; cause?: { code?: unknown } }).cause?.code ?? (err as { code?: unknown }).code;
    if (code === '23505') throw new ConflictError(REGEX_TAKEN);
    throw err;
  }
}
