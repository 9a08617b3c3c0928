import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { useAuth } from '../auth';
import { Notice, PageHeader, useAction } from '../ui/kit';

/** The signed-in administrator's own e-mail and password (`PUT /sessions/me`: no privilege needed). */
export default function Account() {
  const { admin, refresh } = useAuth();
  return (
    <>
      <PageHeader title="Your account" />
      <div className="two-columns">
        <EmailForm current={admin.email} onSaved={refresh} />
        <PasswordForm />
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

function EmailForm({ current, onSaved }: { current: string; onSaved: () => Promise<void> }) {
  const [email, setEmail] = useState(current);
  const [currentPassword, setCurrentPassword] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    const ok = await action.run(async () => {
      await unwrap(api.PUT('/api/v2/sessions/me', { body: { current_password: currentPassword, email } }));
      await onSaved();
    });
    if (ok) setCurrentPassword('');
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
      <CurrentPassword value={currentPassword} onChange={setCurrentPassword} />
      <div>
        <button type="submit" className="button primary" disabled={action.busy}>
          Save e-mail
        </button>
      </div>
    </form>
  );
}

function PasswordForm() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    const ok = await action.run(async () => {
      if (password !== repeat) throw new Error('The two passwords differ.');
      await unwrap(api.PUT('/api/v2/sessions/me', { body: { current_password: currentPassword, password } }));
    });
    if (ok) {
      setCurrentPassword('');
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
      <CurrentPassword value={currentPassword} onChange={setCurrentPassword} />
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

/** Both forms ask for the password the administrator has now: the API requires it for any change. */
function CurrentPassword({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <label>
      Current password
      <input type="password" autoComplete="current-password" required value={value} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}
