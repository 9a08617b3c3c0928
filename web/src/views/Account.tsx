import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { useAuth } from '../auth';
import { Notice, PageHeader, useAction } from '../ui/kit';

/** The signed-in administrator's own e-mail and password. */
export default function Account() {
  const { admin, refresh } = useAuth();
  return (
    <>
      <PageHeader title="Your account" />
      <div className="two-columns">
        <EmailForm id={admin.id} current={admin.email} onSaved={refresh} />
        <PasswordForm id={admin.id} />
      </div>
      <section className="card">
        <h2>Privileges</h2>
        <p>
          {admin.super_user
            ? 'You are a super user: you may do everything.'
            : `You may work with: ${
                Object.entries(admin.privileges)
                  .filter(([, on]) => on)
                  .map(([name]) => name)
                  .join(', ') || 'nothing yet'
              }.`}
        </p>
      </section>
    </>
  );
}

function EmailForm({ id, current, onSaved }: { id: number; current: string; onSaved: () => Promise<void> }) {
  const [email, setEmail] = useState(current);
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    const ok = await action.run(async () => {
      await unwrap(api.PUT('/api/v2/administrators/{adminId}', { params: { path: { adminId: id } }, body: { email } }));
      await onSaved();
    });
    setDone(ok);
  };
  return (
    <form className="card stack" onSubmit={(e) => void submit(e)}>
      <h2>E-mail</h2>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {done && <Notice kind="success">Your e-mail address is changed.</Notice>}
      <label>
        Your e-mail
        <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <div>
        <button type="submit" className="button primary" disabled={action.busy}>
          Save e-mail
        </button>
      </div>
    </form>
  );
}

function PasswordForm({ id }: { id: number }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    const ok = await action.run(async () => {
      if (password !== repeat) throw new Error('The two passwords differ.');
      await unwrap(api.PUT('/api/v2/administrators/{adminId}', { params: { path: { adminId: id } }, body: { password } }));
    });
    if (ok) {
      setPassword('');
      setRepeat('');
    }
    setDone(ok);
  };
  return (
    <form className="card stack" onSubmit={(e) => void submit(e)}>
      <h2>Password</h2>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {done && <Notice kind="success">Your password is changed. Your other sessions have ended.</Notice>}
      <label>
        New password
        <input type="password" autoComplete="new-password" required minLength={6} value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      <label>
        New password again
        <input type="password" autoComplete="new-password" required minLength={6} value={repeat} onChange={(e) => setRepeat(e.target.value)} />
      </label>
      <div>
        <button type="submit" className="button primary" disabled={action.busy}>
          Change password
        </button>
      </div>
    </form>
  );
}
