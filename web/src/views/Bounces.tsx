import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import type { Answer } from '../api/types';
import { useApi } from '../api/useApi';
import { can, useAuth } from '../auth';
import { Link, navigate, useLocation, withQuery } from '../router';
import { Loaded, PagedTable, useAddressCursor } from '../ui/data';
import { InfoDialog } from '../ui/FormDialog';
import { ConfirmDialog, Empty, Notice, PageHeader } from '../ui/kit';
import { formatDateTime } from '../ui/dates';
import './templates.css';

type Bounce = Answer<'/api/v2/bounces', 'get'>['items'][number];
const PAGE = 50;
/** The statuses bounce processing writes (the filter is exact, so these are offered; any other can be typed). */
const STATUSES = ['bounced list message', 'bounced system message', 'unidentified', 'complaint', 'not processed'];

/** Received bounces with the subscriber and campaign they were matched to; the raw message on demand. */
export default function Bounces() {
  const loc = useLocation();
  const { admin } = useAuth();
  const after = useAddressCursor();
  const status = loc.query.get('status') ?? '';
  const subscriber = Number(loc.query.get('subscriber')) || 0;
  const [statusInput, setStatusInput] = useState(status);
  const [subscriberInput, setSubscriberInput] = useState(subscriber ? String(subscriber) : '');
  const [showing, setShowing] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<Bounce | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const page = useApi(
    () =>
      unwrap(
        api.GET('/api/v2/bounces', {
          params: { query: { after_id: after, limit: PAGE, ...(status ? { status } : {}), ...(subscriber ? { subscriber_id: subscriber } : {}) } },
        }),
      ),
    [after, status, subscriber],
  );

  const filter = (event: FormEvent) => {
    event.preventDefault();
    navigate(withQuery(loc, { status: statusInput.trim(), subscriber: subscriberInput.trim(), after: null }));
  };

  return (
    <>
      <PageHeader title="Bounces">
        {can(admin, 'settings') && (
          <Link className="button" to="bounce-rules">
            Bounce rules
          </Link>
        )}
      </PageHeader>
      {notice && <Notice kind="success">{notice}</Notice>}
      <form className="card row" role="search" aria-label="Filter bounces" onSubmit={filter}>
        <label>
          Status
          <input list="bounce-statuses" value={statusInput} onChange={(e) => setStatusInput(e.target.value)} placeholder="Any status" />
          <datalist id="bounce-statuses">
            {STATUSES.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </label>
        <label>
          Subscriber id
          <input
            type="number"
            min={1}
            inputMode="numeric"
            value={subscriberInput}
            onChange={(e) => setSubscriberInput(e.target.value)}
            placeholder="Any subscriber"
          />
        </label>
        <button type="submit" className="button">
          Filter
        </button>
        {(status || subscriber > 0) && (
          <Link className="button subtle" to="bounces">
            Show all
          </Link>
        )}
      </form>
      <div className="spacer" />
      <PagedTable
        state={page}
        after={after}
        columns={[
          { label: 'Received' },
          { label: 'Subscriber' },
          { label: 'Campaign', hideNarrow: true },
          { label: 'Status', hideNarrow: true },
          { label: 'Actions', hiddenLabel: true },
        ]}
        empty={
          <Empty title={status || subscriber ? 'No bounces match these filters' : 'No bounces received'}>
            <p>Bounces appear here as bounce processing reads them from the bounce mailbox or the inbound endpoint.</p>
          </Empty>
        }
        row={(b) => (
          <tr key={b.id}>
            <td>{formatDateTime(b.date)}</td>
            <td className="break">
              {b.subscriber_id ? (
                <Link to={`subscribers/${b.subscriber_id}`}>{b.subscriber_email ?? `#${b.subscriber_id}`}</Link>
              ) : (
                <span className="muted">Not matched</span>
              )}
              {b.comment && <div className="muted small">{b.comment}</div>}
            </td>
            <td className="hide-narrow break">
              {b.message_id ? (
                <Link to={`campaigns/${b.message_id}`}>{b.message_subject || `Campaign ${b.message_id}`}</Link>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
            <td className="hide-narrow">
              <span className="badge">{b.status ?? 'unknown'}</span>
            </td>
            <td>
              <div className="rule-actions">
                <button type="button" className="button" onClick={() => setShowing(b.id)}>
                  Raw message<span className="visually-hidden"> of bounce {b.id}</span>
                </button>
                <button type="button" className="button subtle danger" onClick={() => setDeleting(b)}>
                  Delete<span className="visually-hidden"> bounce {b.id}</span>
                </button>
              </div>
            </td>
          </tr>
        )}
      />
      <RawMessage id={showing} onClose={() => setShowing(null)} />
      <ConfirmDialog
        title="Delete this bounce?"
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        confirmLabel="Delete bounce"
        confirm={async () => {
          if (!deleting) return;
          await unwrap(api.DELETE('/api/v2/bounces/{bounceId}', { params: { path: { bounceId: deleting.id } } }));
          setNotice('The bounce was deleted.');
          page.reload();
        }}
      >
        <p>
          The record of this bounce{deleting?.subscriber_email ? ` from ${deleting.subscriber_email}` : ''} and its raw message are deleted. The
          subscriber's bounce count and anything a rule already did stay as they are.
        </p>
      </ConfirmDialog>
    </>
  );
}

/** The message as received, fetched only when asked for (it can be large). */
function RawMessage({ id, onClose }: { id: number | null; onClose: () => void }) {
  // Nothing is fetched while the dialog is closed; Loaded reads undefined as not loaded yet.
  const raw = useApi(
    async () => (id === null ? undefined : unwrap(api.GET('/api/v2/bounces/{bounceId}', { params: { path: { bounceId: id } } }))),
    [id],
  );
  return (
    <InfoDialog title={id === null ? 'Raw message' : `Raw message of bounce ${id}`} open={id !== null} onClose={onClose}>
      <Loaded state={raw} isEmpty={(r) => r.header === null && r.data === null} empty={<p>The message of this bounce was not kept.</p>}>
        {(r) => (
          <div className="stack raw-message wide">
            {r.truncated && <Notice>The message is long: only its first 262,144 characters of header and of body are shown.</Notice>}
            <pre className="raw" tabIndex={0} aria-label="Raw message">
              {[r.header, r.data].filter((part) => part !== null).join('\n\n')}
            </pre>
          </div>
        )}
      </Loaded>
    </InfoDialog>
  );
}
