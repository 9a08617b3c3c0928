import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { ConflictError, driverCode, NotFoundError, ValidationError } from '../shared/errors.js';
import { cursorOf, toPage, type PageQuery } from '../shared/pagination.js';
import { toAtom } from '../shared/time.js';
import { countBlacklistedWithFlags, ON_SOME_LIST } from '../subscription/index.js';
import { segmentCountSource, segmentPredicate } from './segment.compile.js';
import { checkDefinition, type Condition, type GroupCondition } from './segment.definition.js';
import * as repo from './segment.repository.js';
import type { MatchPage, MatchPageQuery, PreviewBody, Segment, SegmentBody, SegmentCount } from './segment.schemas.js';

const NAME_TAKEN = 'A segment with this name already exists.';

function toSegment(row: repo.SegmentRow): Segment {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    definition: row.definition,
    created_at: toAtom(row.createdAt),
    updated_at: toAtom(row.updatedAt),
  };
}

/** The definition checked against today's attributes and lists, or a 422 naming the path of each bad condition. */
export async function checked(db: Executor, definition: unknown, root = 'definition'): Promise<GroupCondition> {
  const result = checkDefinition(definition, await repo.vocabulary(db), root);
  if (!result.ok) throw new ValidationError(result.errors);
  return result.definition;
}

async function existing(ctx: AppContext, id: number): Promise<repo.SegmentRow> {
  const row = await repo.find(ctx.db, id);
  if (!row) throw new NotFoundError('Segment not found.');
  return row;
}

export async function create(ctx: AppContext, body: SegmentBody, callerId: number): Promise<Segment> {
  await checked(ctx.db, body.definition);
  const name = body.name.trim();
  if (await repo.nameTaken(ctx.db, name)) throw new ConflictError(NAME_TAKEN);
  return toSegment(await repo.insert(ctx.db, { name, description: body.description ?? null, definition: body.definition, createdBy: callerId }));
}

export async function update(ctx: AppContext, id: number, body: SegmentBody): Promise<Segment> {
  await existing(ctx, id);
  await checked(ctx.db, body.definition);
  const name = body.name.trim();
  if (await repo.nameTaken(ctx.db, name, id)) throw new ConflictError(NAME_TAKEN);
  const row = await repo.update(ctx.db, id, { name, description: body.description ?? null, definition: body.definition });
  if (!row) throw new NotFoundError('Segment not found.');
  return toSegment(row);
}

export async function remove(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.remove(ctx.db, id))) throw new NotFoundError('Segment not found.');
}

export async function get(ctx: AppContext, id: number): Promise<Segment> {
  return toSegment(await existing(ctx, id));
}

export async function list(ctx: AppContext, query: PageQuery) {
  const { afterId, limit } = cursorOf(query);
  const { rows, total } = await repo.page(ctx.db, afterId, limit);
  return toPage(rows.map(toSegment), total, limit, (s) => s.id);
}

/** A saved segment's definition, checked again: an attribute or list it names may have gone since it was saved. */
async function savedDefinition(ctx: AppContext, id: number): Promise<GroupCondition> {
  return checked(ctx.db, (await existing(ctx, id)).definition);
}

export async function countSaved(ctx: AppContext, id: number): Promise<SegmentCount> {
  return count(ctx, await savedDefinition(ctx, id));
}

export async function countUnsaved(ctx: AppContext, definition: unknown): Promise<SegmentCount> {
  return count(ctx, await checked(ctx.db, definition));
}

/*
 * A count or a page is bounded (issue 23: 99 `not_contains` conditions took 0.68 s on 10,000 subscribers, about a
 * minute at a million, and on the embedded database a statement that long holds its one connection, so the shedder
 * answers 503 to everyone). On PostgreSQL by time: SEGMENT_TIMEOUT_MS, then a 422 on `definition` saying so. The embedded database
 * cannot interrupt a statement, so there the work is bounded before it starts: conditions × the subscribers it may
 * visit (the highest id above the page's start), at most EMBEDDED_SEGMENT_BUDGET, or a 422 saying what to change.
 */

/** Condition checks (conditions × subscribers) a count or page may need on the embedded database: a few seconds. */
export const EMBEDDED_SEGMENT_BUDGET = 5_000_000;

const conditionsIn = (c: Condition): number => (c.type === 'group' ? c.conditions.reduce((n, inner) => n + conditionsIn(inner), 0) : 1);

async function withinBudget(ctx: AppContext, definition: GroupCondition, afterId: number): Promise<void> {
  if (ctx.db.kind !== 'pglite') return;
  const conditions = Math.max(1, conditionsIn(definition));
  const subscribers = Math.max(0, (await repo.highestSubscriberId(ctx.db)) - afterId);
  if (conditions * subscribers <= EMBEDDED_SEGMENT_BUDGET) return;
  const allowed = Math.max(1, Math.floor(EMBEDDED_SEGMENT_BUDGET / Math.max(1, subscribers)));
  throw ValidationError.field(
    'definition',
    `This segment is too costly for the embedded database: ${conditions} conditions over up to ${subscribers} subscribers ` +
      `(at most ${EMBEDDED_SEGMENT_BUDGET.toLocaleString('en')} condition checks). Use at most ${allowed} conditions, ` +
      'or move to PostgreSQL (README: When to move to PostgreSQL).',
  );
}

/** The database's statement timeout turned into the 422 a client can act on. */
async function timed<T>(ctx: AppContext, run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    if (driverCode(err) !== '57014') throw err;
    const seconds = ctx.config.segmentTimeoutMs / 1000;
    throw ValidationError.field(
      'definition',
      `This segment took longer than ${seconds} s to evaluate and was stopped: use fewer or more selective conditions.`,
    );
  }
}

/**
 * How many subscribers match, and how many of them a campaign to the segment alone would mail (the freeze's rule:
 * confirmed, not blacklisted, not disabled, address not in the blacklist, on some list — subscription's rule, as
 * the audience count applies it). Issue 25: the builder said 664 where the send page said 598. The matches and those
 * with the flags on some list come from one pass (countMatching); the blacklist table's addresses are taken off after.
 */
async function count(ctx: AppContext, definition: GroupCondition): Promise<SegmentCount> {
  await withinBudget(ctx, definition, 0);
  const { matches, withFlagsOnSomeList } = await timed(ctx, repo.countMatching(ctx.db, segmentCountSource(definition), ctx.config.segmentTimeoutMs));
  const blacklisted =
    withFlagsOnSomeList > 0 ? await timed(ctx, countBlacklistedWithFlags(ctx.db, sql`${segmentPredicate(definition)} and ${ON_SOME_LIST}`)) : 0;
  return { count: matches, sendable: withFlagsOnSomeList - blacklisted };
}

async function matchPage(ctx: AppContext, definition: GroupCondition, afterId: number, limit: number): Promise<MatchPage> {
  await withinBudget(ctx, definition, afterId);
  const rows = await timed(ctx, repo.matchingPage(ctx.db, segmentPredicate(definition, afterId), afterId, limit, ctx.config.segmentTimeoutMs));
  const last = rows[rows.length - 1];
  return {
    items: rows.map((r) => ({ id: r.id, email: r.email, confirmed: r.confirmed, blacklisted: r.blacklisted, created_at: toAtom(r.createdAt) })),
    pagination: { limit, has_more: rows.length === limit, next_cursor: last ? last.id : null },
  };
}

export async function matchingSaved(ctx: AppContext, id: number, query: MatchPageQuery): Promise<MatchPage> {
  return matchPage(ctx, await savedDefinition(ctx, id), query.after_id ?? 0, query.limit ?? 25);
}

export async function matchingUnsaved(ctx: AppContext, body: PreviewBody): Promise<MatchPage> {
  return matchPage(ctx, await checked(ctx.db, body.definition), body.after_id ?? 0, body.limit ?? 25);
}
