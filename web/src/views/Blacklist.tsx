import { useState, type FormEvent } from 'react';
import type { ApiError } from '../api/client';
import { api, unwrap } from '../api/client';
import type { BlacklistInfo } from '../api/types';
import { navigate, useLocation, withQuery } from '../router';
import { ConfirmDialog, ErrorState, Loading, Notice, PageHeader, useAction } from '../ui/kit';
import { formatDateTime } from '../ui/dates';
import { useApi } from '../api/useApi';
import BlacklistEntries from './BlacklistEntries';

/** Look an address up on the blacklist (with its reason and date), add one, take one off. */
export default function Blacklist() {
  const loc = useLocation();
  const email = loc.query.get('email') ?? '';
  const [search, setSearch] = useState(email);
  const [notice, setNotice] = useState<string | null>(null);
  const [removing, setRemoving] = useState(false);
  const [version, setVersion] = useState(0);
  const found = useApi(async (): Promise<BlacklistInfo | null> => {
    if (!email) return null;
    try {
      return await unwrap(api.GET('/api/v2/blacklist/info/{email}', { params: { path: { email } } }));
    } catch (err) {
      if ((err as ApiError).status === 404) return null;
      throw err;
    }
  }, [email]);

  const lookUp = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    navigate(withQuery(loc, { email: search.trim() }));
  };

  return (
    <>
      <PageHeader title="Blacklist" />
      {notice && <Notice kind="success">{notice}</Notice>}
      <div className="two-columns">
        <section className="card stack">
          <h2>Look up an address</h2>
          <form className="row" role="search" onSubmit={lookUp}>
            <label>
              E-mail
              <input type="search" required value={search} onChange={(e) => setSearch(e.target.value)} />
            </label>
            <button type="submit" className="button">
              Look up
            </button>
          </form>
          {email &&
            (found.status === 'error' ? (
              <ErrorState error={found.error} retry={found.reload} />
            ) : found.status === 'loading' ? (
              <Loading />
            ) : found.data ? (
              <div className="stack" data-testid="blacklist-entry">
                <dl className="facts">
                  <dt>Address</dt>
                  <dd>{found.data.email}</dd>
                  <dt>Added</dt>
                  <dd>{formatDateTime(found.data.added)}</dd>
                  <dt>Reason</dt>
                  <dd>{found.data.reason || '—'}</dd>
                </dl>
                <div>
                  <button type="button" className="button danger" onClick={() => setRemoving(true)}>
                    Remove from blacklist
                  </button>
                </div>
              </div>
            ) : (
              <p data-testid="blacklist-entry">{email} is not blacklisted.</p>
            ))}
        </section>
        <AddEntry
          onAdded={(added) => {
            setNotice(`${added} is blacklisted.`);
            setSearch(added);
            navigate(withQuery(loc, { email: added }));
            found.reload();
            setVersion((v) => v + 1);
          }}
        />
      </div>
      <div className="spacer" />
      <BlacklistEntries version={version} />
      <ConfirmDialog
        title="Remove from blacklist?"
        open={removing}
        onClose={() => setRemoving(false)}
        confirmLabel="Remove"
        confirm={async () => {
          await unwrap(api.DELETE('/api/v2/blacklist/remove/{email}', { params: { path: { email } } }));
          setNotice(`${email} can receive mail again.`);
          found.reload();
          setVersion((v) => v + 1);
        }}
      >
        <p>{email} will receive campaigns again from the lists they are on.</p>
      </ConfirmDialog>
    </>
  );
}

function AddEntry({ onAdded }: { onAdded: (email: string) => void }) {
  const [email, setEmail] = useState('');
  const [reason, setReason] = useState('');
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await action.run(async () => {
      await unwrap(api.POST('/api/v2/blacklist/add', { body: { email, reason: reason || null } }));
    });
    if (ok) {
      onAdded(email);
      setEmail('');
      setReason('');
    }
  };
  return (
    <form className="card stack" onSubmit={(e) => void submit(e)}>
      <h2>Add an address</h2>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <label>
        E-mail to blacklist
        <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        Reason
        <input value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <div>
        <button type="submit" className="button primary" disabled={action.busy}>
          Blacklist
        </button>
      </div>
    </form>
  );
}
