import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { loginNameOf } from '../identity/index.js';
import { driverCode, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors.js';
import { toAtom } from '../shared/time.js';
import { findList, type ListRow } from './list.repository.js';
import * as repo from './subscriber-bulk.repository.js';
import { bulkStopping, runInBackground } from './subscriber-bulk.jobs.js';
import type { BulkAction, BulkBody, BulkExportBody, BulkJob } from './subscriber-bulk.schemas.js';
import { exportRowsByIds, type ExportRow } from './subscriber-export.repository.js';
import { csvStream, EXPORT_BATCH_SIZE, exportFilename, exportTable } from './subscriber-export.service.js';
import type { SubscriberFilter } from './subscriber-filter.js';
import { insertHistoryForMany } from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { countSelection, nextSelectionBatch } from './subscriber-selection.repository.js';
import { filterOf } from './subscriber.service.js';
import type { SubscriberFilterQuery } from './subscriber.schemas.js';

/** Subscribers per batch: one transaction, one statement per step, whatever the selection's size. */
export const BULK_BATCH_SIZE = 1000;

const JOB_NOT_FOUND = 'Bulk job not found.';
const DEFAULT_REASON = 'Blacklisted by an administrator';

/** The subscribers a bulk request selects: named ids, or every match of the list view's filter. */
export type Selection = { kind: 'ids'; ids: number[] } | { kind: 'filter'; filter: SubscriberFilter };

/** `ids` or `filter`, exactly one, as a checked Selection; field errors name what is wrong. */
export async function selectionOf(ctx: AppContext, body: { ids?: number[]; filter?: SubscriberFilterQuery }): Promise<Selection> {
  if (body.ids !== undefined && body.filter !== undefined) {
    throw ValidationError.field('ids', 'Give either ids or filter, not both: which subscribers to act on is ambiguous.');
  }
  if (body.ids !== undefined) return { kind: 'ids', ids: [...new Set(body.ids)].sort((a, b) => a - b) };
  if (body.filter !== undefined) return { kind: 'filter', filter: await filterOf(ctx, body.filter, 'invalid', 'filter.') };
  throw ValidationError.field('ids', 'Give ids (a list of subscriber ids) or filter (every match of a filter): no subscribers were selected.');
}

/** The batches of a selection, in id order, each read when the previous one has been dealt with. */
export async function* selectionBatches(ctx: AppContext, selection: Selection, size = BULK_BATCH_SIZE): AsyncGenerator<number[]> {
  if (selection.kind === 'ids') {
    for (let i = 0; i < selection.ids.length; i += size) yield selection.ids.slice(i, i + size);
    return;
  }
  let afterId = 0;
  for (;;) {
    const ids = await nextSelectionBatch(ctx.db, selection.filter, afterId, size);
    if (ids.length === 0) return;
    yield ids;
    afterId = ids[ids.length - 1]!;
    if (ids.length < size) return;
  }
}

/** The target list of a list action: required, existing (else 422 at `list_id`), and the caller's or nobody's. */
async function targetList(ctx: AppContext, action: BulkAction, listId: number | undefined, callerId: number): Promise<ListRow | null> {
  if (action !== 'add_to_list' && action !== 'remove_from_list') return null;
  if (listId === undefined) throw ValidationError.field('list_id', `The action ${action} needs list_id: the list to act on.`);
  const list = await findList(ctx.db, listId);
  if (!list) throw ValidationError.field('list_id', `There is no list with id ${listId}.`);
  if (list.ownerId !== null && list.ownerId !== callerId) throw new ForbiddenError('Access denied.');
  return list;
}

function toJob(row: repo.BulkJobRow): BulkJob {
  return {
    id: row.id,
    action: row.action as BulkAction,
    state: row.state as BulkJob['state'],
    list_id: row.listId,
    total: row.total,
    done: row.done,
    affected: row.affected,
    error: row.error,
    created_at: toAtom(row.createdAt),
    finished_at: row.finishedAt ? toAtom(row.finishedAt) : null,
  };
}

export async function getJob(ctx: AppContext, id: number): Promise<BulkJob> {
  const row = await repo.findJob(ctx.db, id);
  if (!row) throw new NotFoundError(JOB_NOT_FOUND);
  return toJob(row);
}

/** What one batch does, and the history entry of each subscriber it changed (none for a deletion). */
interface Step {
  act(tx: Executor, ids: number[]): Promise<number[]>;
  history: { summary: string; detail: string } | null;
}

function stepOf(action: BulkAction, list: ListRow | null, reason: string, adminId: number, login: string): Step {
  const listName = list ? `list "${list.name}" (#${list.id})` : '';
  switch (action) {
    case 'add_to_list':
      return {
        act: (tx, ids) => repo.addToList(tx, list!.id, ids),
        history: { summary: `List change by ${login}`, detail: `Joined ${listName} (bulk action)` },
      };
    case 'remove_from_list':
      return {
        act: (tx, ids) => repo.removeFromList(tx, list!.id, ids),
        history: { summary: `List change by ${login}`, detail: `Left ${listName} (bulk action)` },
      };
    case 'blacklist':
      return {
        act: (tx, ids) => repo.blacklist(tx, ids, reason, adminId),
        history: { summary: `Blacklisted by ${login}`, detail: `blacklisted = true *changed* from false (bulk action); reason: ${reason}` },
      };
    case 'delete':
      return { act: (tx, ids) => repo.deleteSubscribers(tx, ids), history: null };
  }
}

/**
 * Starts a bulk action: checks the request, records the job and works through the selection batch by batch, each
 * batch one transaction that also adds its progress. A selection of one batch is finished before the answer
 * (`finished: true`); a larger one goes on in the background while `GET /subscribers/bulk/{id}` shows its progress.
 */
export async function startBulk(
  ctx: AppContext,
  body: BulkBody,
  callerId: number,
  origin: HistoryOrigin,
): Promise<{ job: BulkJob; finished: boolean }> {
  const selection = await selectionOf(ctx, body);
  const list = await targetList(ctx, body.action, body.list_id, callerId);
  const reason = body.reason?.trim() || DEFAULT_REASON;
  const total = selection.kind === 'ids' ? selection.ids.length : await countSelection(ctx.db, selection.filter);
  const login = await loginNameOf(ctx.db, callerId);
  const job = await repo.insertJob(ctx.db, {
    action: body.action,
    listId: list?.id ?? null,
    reason: body.action === 'blacklist' ? reason : null,
    total,
    adminId: callerId,
  });
  const work = runJob(ctx, job.id, selection, stepOf(body.action, list, reason, callerId, login), origin);
  if (total <= BULK_BATCH_SIZE) {
    await work;
    return { job: await getJob(ctx, job.id), finished: true };
  }
  runInBackground(ctx, work);
  return { job: toJob(job), finished: false };
}

/** Works through the selection; never throws (a failure ends the job as `failed`, logged without personal data). */
async function runJob(ctx: AppContext, jobId: number, selection: Selection, step: Step, origin: HistoryOrigin): Promise<void> {
  try {
    for await (const ids of selectionBatches(ctx, selection)) {
      if (bulkStopping(ctx)) {
        await repo.finishJob(ctx.db, jobId, 'interrupted', 'The server stopped before the job was finished; start it again for the rest.');
        return;
      }
      await ctx.db.transaction(async (tx) => {
        const changed = await step.act(tx, ids);
        if (step.history) await insertHistoryForMany(tx, changed, origin, step.history.summary, step.history.detail);
        await repo.addProgress(tx, jobId, ids.length, changed.length);
      });
    }
    await repo.finishJob(ctx.db, jobId, 'done', null);
  } catch (err) {
    // The message and code only: a driver error's detail can quote an address.
    ctx.log.error({ jobId, error: err instanceof Error ? err.message : String(err), code: driverCode(err) }, 'bulk job failed');
    await repo
      .finishJob(ctx.db, jobId, 'failed', 'The job stopped on an error; the batches before it were applied. The server log has the details.')
      .catch(() => ctx.log.error({ jobId }, 'bulk job: could not record the failure'));
  }
}

/** The CSV of a bulk selection (the columns of `POST /subscribers/export`), streamed batch by batch. */
export async function exportSelection(ctx: AppContext, body: BulkExportBody): Promise<{ filename: string; body: Readable }> {
  const selection = await selectionOf(ctx, body);
  const table = await exportTable(ctx, body.columns);
  async function* rows(): AsyncGenerator<ExportRow[]> {
    for await (const ids of selectionBatches(ctx, selection, EXPORT_BATCH_SIZE)) yield exportRowsByIds(ctx.db, ids);
  }
  return { filename: exportFilename(), body: csvStream(ctx, table, true, rows()) };
}
