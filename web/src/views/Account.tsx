import { useState, type FormEvent } from 'react';
import { ApiError, api, unwrap } from '../api/client';
import { useAuth } from '../auth';
import { Notice, PageHeader, useAction } from '../ui/kit';
import { formatWait, useWait } from '../ui/wait';

/** The signed-in administrator's own e-mail and password (`PUT /sessions/me`: no privilege needed). */
export default function Account() {
  const { admin, refresh } = useAuth();
  const throttle = useWait();
  return (
    <>
      <PageHeader title="Your account" />
      {throttle.seconds > 0 && <Notice kind="error">Too many wrong current passwords. Try again in {formatWait(throttle.seconds)}.</Notice>}
      <div className="two-columns">
        <EmailForm current={admin.email} onSaved={refresh} throttle={throttle} />
        <PasswordForm throttle={throttle} />
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

function EmailForm({ current, onSaved, throttle }: { current: string; onSaved: () => Promise<void>; throttle: Throttle }) {
  const [email, setEmail] = useState(current);
  const [currentPassword, setCurrentPassword] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    await action.run(async () => {
      if (await throttled(throttle, unwrap(api.PUT('/api/v2/sessions/me', { body: { current_password: currentPassword, email } })))) return;
      await onSaved();
      setCurrentPassword('');
      setDone(true);
    });
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
        <button type="submit" className="button primary" disabled={action.busy || throttle.seconds > 0}>
          Save e-mail
        </button>
      </div>
    </form>
  );
}

function PasswordForm({ throttle }: { throttle: Throttle }) {
  const [currentPassword, setCurrentPassword] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    await action.run(async () => {
      if (password !== repeat) throw new Error('The two passwords differ.');
      if (await throttled(throttle, unwrap(api.PUT('/api/v2/sessions/me', { body: { current_password: currentPassword, password } })))) return;
      setCurrentPassword('');
      setPassword('');
      setRepeat('');
      setDone(true);
    });
  };
  return (
    <form className="card stack" onSubmit={(e) => void submit(e)}>
      <h2>Password</h2>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {done && <Notice kind="success">Your password is changed. Your other sessions have ended.</Notice>}
      <CurrentPassword value={currentPassword} onChange={setCurrentPassword} />
      <label>
        New password
        <input type="password" autoComplete="new-password" required minLength={12} value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      <label>
        New password again
        <input type="password" autoComplete="new-password" required minLength={12} value={repeat} onChange={(e) => setRepeat(e.target.value)} />
      </label>
      <div>
        <button type="submit" className="button primary" disabled={action.busy || throttle.seconds > 0}>
          Change password
        </button>
      </div>
    </form>
  );
}

type Throttle = ReturnType<typeof useWait>;

/**
 * Runs a PUT /sessions/me; a 429 (too many wrong current passwords, throttled as logins) starts the page's countdown
 * instead of failing the form, and answers true.
 */
async function throttled(throttle: Throttle, request: Promise<unknown>): Promise<boolean> {
  try {
    await request;
    return false;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 429) throw err;
    throttle.start(err.retryAfter ?? 60);
    return true;
  }
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
