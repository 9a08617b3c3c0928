import { useState } from 'react';
import { api, postBlob, unwrap } from '../../api/client';
import type { BulkJob, BulkRequest, SubscriberFilter } from '../../api/types';
import { useApi } from '../../api/useApi';
import { FormDialog } from '../../ui/FormDialog';
import { ConfirmDialog, Notice, formatCount, useAction } from '../../ui/kit';
import { usePoll } from '../../ui/poll';
import type { Selection } from './selection';

type Action = BulkRequest['action'];
type Asking = Action | null;

const DONE_TEXT: Record<Action, (n: string, list: string) => string> = {
  add_to_list: (n, list) => `Added ${n} to ${list}.`,
  remove_from_list: (n, list) => `Removed ${n} from ${list}.`,
  blacklist: (n) => `Blacklisted ${n}.`,
  delete: (n) => `Deleted ${n}.`,
};
const RUNNING_TEXT: Record<Action, string> = {
  add_to_list: 'Adding to the list',
  remove_from_list: 'Removing from the list',
  blacklist: 'Blacklisting',
  delete: 'Deleting',
};

const plural = (n: number) => `${formatCount(n)} subscriber${n === 1 ? '' : 's'}`;

/**
 * The bar over the table once something is selected: how many (the ticks, or "all N matching"), the actions, each
 * asking first, and the progress of the job it starts, polled until it ends. `onChanged` reloads the page.
 */
export function BulkActions(props: { selection: Selection; filter: SubscriberFilter; matching: number; pageIds: number[]; onChanged: () => void }) {
  const { selection, filter, matching } = props;
  const [asking, setAsking] = useState<Asking>(null);
  const [job, setJob] = useState<{ job: BulkJob; listName: string } | null>(null);
  const exporting = useAction();
  const count = selection.everyMatch ? matching : selection.ids.size;
  const target = (): Pick<BulkRequest, 'ids' | 'filter'> => (selection.everyMatch ? { filter } : { ids: [...selection.ids] });

  const start = async (body: Omit<BulkRequest, 'ids' | 'filter'>, listName = '') => {
    const started = await unwrap(api.POST('/api/v2/subscribers/bulk', { body: { ...body, ...target() } }));
    setJob({ job: started, listName });
    selection.clear();
    if (started.state !== 'running') props.onChanged();
  };
  usePoll(
    async () => {
      if (!job) return;
      const now = await unwrap(api.GET('/api/v2/bulk-jobs/{jobId}', { params: { path: { jobId: job.job.id } } }));
      setJob({ ...job, job: now });
      if (now.state !== 'running') props.onChanged();
    },
    500,
    job?.job.state === 'running',
    true,
  );
  const exportCsv = () =>
    exporting.run(async () => {
      const blob = await postBlob('/api/v2/subscribers/bulk/export', target());
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = 'subscribers.csv';
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    });

  const allOnPage = props.pageIds.length > 0 && props.pageIds.every((id) => selection.ids.has(id));
  return (
    <>
      {job && <JobProgress job={job.job} listName={job.listName} onDismiss={() => setJob(null)} />}
      {count > 0 && (
        <div className="card bulk-bar" role="region" aria-label="Selected subscribers">
          <strong>{selection.everyMatch ? `All ${plural(matching)} matching` : `${plural(count)} selected`}</strong>
          {!selection.everyMatch && allOnPage && matching > selection.ids.size && (
            <button type="button" className="button subtle" onClick={() => selection.setEveryMatch(true)}>
              Select all {formatCount(matching)} matching
            </button>
          )}
          <button type="button" className="button subtle" onClick={selection.clear}>
            Clear selection
          </button>
          <span className="bulk-actions">
            <button type="button" className="button" onClick={() => setAsking('add_to_list')}>
              Add to list…
            </button>
            <button type="button" className="button" onClick={() => setAsking('remove_from_list')}>
              Remove from list…
            </button>
            <button type="button" className="button" disabled={exporting.busy} onClick={() => void exportCsv()}>
              Export CSV
            </button>
            <button type="button" className="button" onClick={() => setAsking('blacklist')}>
              Blacklist…
            </button>
            <button type="button" className="button danger" onClick={() => setAsking('delete')}>
              Delete…
            </button>
          </span>
          {exporting.error && <Notice kind="error">{exporting.error}</Notice>}
        </div>
      )}
      <ListDialog
        action={asking === 'remove_from_list' ? 'remove_from_list' : 'add_to_list'}
        open={asking === 'add_to_list' || asking === 'remove_from_list'}
        count={count}
        onClose={() => setAsking(null)}
        start={start}
      />
      <BlacklistDialog open={asking === 'blacklist'} count={count} onClose={() => setAsking(null)} start={start} />
      <ConfirmDialog
        title={`Delete ${plural(count)}?`}
        open={asking === 'delete'}
        onClose={() => setAsking(null)}
        confirmLabel={`Delete ${plural(count)}`}
        confirm={() => start({ action: 'delete' })}
      >
        <p>Their subscriptions, attribute values and history are deleted with them. This cannot be undone; their blacklist entries stay.</p>
      </ConfirmDialog>
    </>
  );
}

type Start = (body: Omit<BulkRequest, 'ids' | 'filter'>, listName?: string) => Promise<void>;

function ListDialog(props: { action: 'add_to_list' | 'remove_from_list'; open: boolean; count: number; onClose: () => void; start: Start }) {
  const lists = useApi(
    () => (props.open ? unwrap(api.GET('/api/v2/lists', { params: { query: { limit: 100 } } })).then((p) => p.items) : Promise.resolve([])),
    [props.open],
  );
  const [listId, setListId] = useState('');
  const action = useAction();
  const adding = props.action === 'add_to_list';
  const submit = () =>
    action.run(async () => {
      const name = lists.data?.find((l) => String(l.id) === listId)?.name ?? `list #${listId}`;
      await props.start({ action: props.action, list_id: Number(listId) }, `“${name}”`);
      props.onClose();
    });
  return (
    <FormDialog
      title={adding ? `Add ${plural(props.count)} to a list` : `Remove ${plural(props.count)} from a list`}
      open={props.open}
      onClose={props.onClose}
      onSubmit={submit}
      submitLabel={adding ? 'Add to list' : 'Remove from list'}
      busy={action.busy}
      error={action.error}
    >
      <label>
        List
        <select required value={listId} onChange={(e) => setListId(e.target.value)}>
          <option value="">Choose a list</option>
          {(lists.data ?? []).map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
      </label>
      {adding && <p className="muted">Blacklisted subscribers are left out. No confirmation mail is sent.</p>}
    </FormDialog>
  );
}

function BlacklistDialog(props: { open: boolean; count: number; onClose: () => void; start: Start }) {
  const [reason, setReason] = useState('');
  const [sure, setSure] = useState(false);
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      await props.start({ action: 'blacklist', reason });
      props.onClose();
    });
  return (
    <FormDialog
      title={`Blacklist ${plural(props.count)}?`}
      open={props.open}
      onClose={props.onClose}
      onSubmit={submit}
      submitLabel={`Blacklist ${plural(props.count)}`}
      busy={action.busy || !sure}
      error={action.error}
    >
      <p>A blacklisted address is never mailed again, whatever list it is on.</p>
      <label>
        Reason
        <textarea
          required
          maxLength={255}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          placeholder="e.g. asked by phone not to be mailed"
        />
      </label>
      <label className="inline">
        <input type="checkbox" checked={sure} onChange={(e) => setSure(e.target.checked)} /> Yes, blacklist {plural(props.count)}
      </label>
    </FormDialog>
  );
}

/** The job's progress while it runs (announced politely), then what it did. */
function JobProgress({ job, listName, onDismiss }: { job: BulkJob; listName: string; onDismiss: () => void }) {
  const action = job.action as Action;
  if (job.state === 'running') {
    return (
      <div className="card stack" role="status" aria-label="Bulk action in progress">
        <span>
          {RUNNING_TEXT[action]}: {formatCount(job.done)} of {formatCount(job.total)}
        </span>
        <progress max={Math.max(job.total, 1)} value={job.done} aria-label={`${RUNNING_TEXT[action]} progress`} />
      </div>
    );
  }
  const ok = job.state === 'done';
  return (
    <Notice kind={ok ? 'success' : 'error'}>
      {ok
        ? DONE_TEXT[action](plural(job.affected), listName)
        : `Stopped after ${formatCount(job.done)} of ${formatCount(job.total)}: ${job.error ?? job.state}`}
      {ok && job.affected < job.done && ` ${formatCount(job.done - job.affected)} needed no change.`}{' '}
      <button type="button" className="button subtle" onClick={onDismiss}>
        Dismiss
      </button>
    </Notice>
  );
}
