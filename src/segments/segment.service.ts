import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { cursorOf, toPage, type PageQuery } from '../shared/pagination.js';
import { toAtom } from '../shared/time.js';
import { countSendable } from '../subscription/index.js';
import { segmentCountSource, segmentPredicate } from './segment.compile.js';
import { checkDefinition, type GroupCondition } from './segment.definition.js';
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

/**
 * How many subscribers match, and how many of them a campaign to the segment would mail (confirmed, not blacklisted,
 * not disabled, address not in the blacklist: the freeze's rule, subscription's countSendable). Issue 25: the builder
 * said 664 where the send page said 598.
 */
async function countOf(ctx: AppContext, definition: GroupCondition): Promise<SegmentCount> {
  const count = await repo.countMatching(ctx.db, segmentCountSource(definition));
  const sendable = count > 0 ? await countSendable(ctx.db, segmentPredicate(definition)) : 0;
  return { count, sendable };
}

export async function countSaved(ctx: AppContext, id: number): Promise<SegmentCount> {
  return countOf(ctx, await savedDefinition(ctx, id));
}

export async function countUnsaved(ctx: AppContext, definition: unknown): Promise<SegmentCount> {
  return countOf(ctx, await checked(ctx.db, definition));
}

async function matchPage(ctx: AppContext, definition: GroupCondition, afterId: number, limit: number): Promise<MatchPage> {
  const rows = await repo.matchingPage(ctx.db, segmentPredicate(definition, afterId), afterId, limit);
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
