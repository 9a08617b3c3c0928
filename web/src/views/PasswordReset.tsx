import { useEffect, useState, type FormEvent } from 'react';
import type { ApiError } from '../api/client';
import { api, unwrap } from '../api/client';
import { Link, navigate, useLocation } from '../router';
import { formatWait, useWait } from '../ui/wait';

/*
 * The password-reset page, outside the signed-in shell (PASSWORD_RESET_URL points here by default:
 * /admin/password-reset?token=…). Without a token it asks for the account's e-mail address and has the link mailed;
 * with one it checks the token and asks for the new password. What it says after a request is the same whether or not
 * an administrator has that address, so the page tells nobody who has an account.
 */
export default function PasswordReset() {
  const token = useLocation().query.get('token')?.trim() ?? '';
  const [done, setDone] = useState(false);
  useEffect(() => {
    document.title = 'Reset your password · Mailroom';
  }, []);
  return (
    <main className="sign-in">
      <div className="card sign-in-card">
        <div className="brand large" aria-hidden="true">
          ✉ Mailroom
        </div>
        {done ? (
          <>
            <h1>Password changed</h1>
            <div className="notice success" role="status">
              Your new password is set, and every session of your account has ended. Sign in with the new password.
            </div>
            <Link className="button primary" to="sign-in">
              Sign in
            </Link>
          </>
        ) : token ? (
          <NewPassword
            token={token}
            onDone={() => {
              setDone(true);
              // The token is used up: the address should not keep it (history, a reload).
              navigate('password-reset', { replace: true, force: true });
            }}
          />
        ) : (
          <RequestLink />
        )}
        {!done && (
          <p>
            <Link to="sign-in">Back to sign in</Link>
          </p>
        )}
      </div>
    </main>
  );
}

function RequestLink({ again = false }: { again?: boolean }) {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const throttle = useWait();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await unwrap(api.POST('/api/v2/password-reset/request', { body: { email: email.trim() } }));
      setSent(true);
    } catch (err) {
      const e = err as ApiError;
      // An unknown address is answered like a known one: the page must not tell who has an account.
      if (e.status === 404) setSent(true);
      else if (e.status === 429) throttle.start(e.retryAfter ?? 900);
      else setError(e.message);
    } finally {
      setBusy(false);
    }
  };

  if (sent) {
    return (
      <>
        <h1>Check your mail</h1>
        <div className="notice success" role="status">
          If an administrator account has the address {email.trim()}, a mail with a link to choose a new password is on its way. The link works for 24
          hours, once.
        </div>
      </>
    );
  }
  const wait = throttle.seconds;
  return (
    <form className="stack" onSubmit={(e) => void submit(e)}>
      <h1>{again ? 'Ask for a new link' : 'Reset your password'}</h1>
      <p className="muted">Give the e-mail address of your administrator account: we mail you a link to choose a new password.</p>
      {wait > 0 && (
        <div className="notice error" role="alert">
          Too many reset requests for this account. Try again in {formatWait(wait)}.
        </div>
      )}
      {error && (
        <div className="notice error" role="alert">
          {error}
        </div>
      )}
      <label>
        E-mail address
        <input name="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <button className="button primary" type="submit" disabled={busy || wait > 0}>
        {busy ? 'Sending…' : 'Mail me a link'}
      </button>
    </form>
  );
}

function NewPassword({ token, onDone }: { token: string; onDone: () => void }) {
  const [valid, setValid] = useState<boolean | null>(null);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    unwrap(api.POST('/api/v2/password-reset/validate', { body: { token } })).then(
      (r) => live && setValid(r.valid),
      () => live && setValid(false),
    );
    return () => {
      live = false;
    };
  }, [token]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (password !== repeat) return setError('The two passwords differ.');
    setBusy(true);
    try {
      await unwrap(api.POST('/api/v2/password-reset/reset', { body: { token, new_password: password } }));
      onDone();
    } catch (err) {
      const e = err as ApiError;
      if (e.status === 400) setValid(false);
      else setError(e.message);
    } finally {
      setBusy(false);
    }
  };

  if (valid === null) return <p className="muted">Checking the link…</p>;
  if (!valid) {
    return (
      <>
        <div className="notice error" role="alert">
          This link has expired or has been used already. Reset links work for 24 hours, once.
        </div>
        <RequestLink again />
      </>
    );
  }
  return (
    <form className="stack" onSubmit={(e) => void submit(e)}>
      <h1>Choose a new password</h1>
      {error && (
        <div className="notice error" role="alert">
          {error}
        </div>
      )}
      <label>
        New password (8 characters or more)
        <input
          name="new-password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          maxLength={255}
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <label>
        The new password again
        <input
          name="repeat-password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          maxLength={255}
          required
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
        />
      </label>
      <button className="button primary" type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Set the new password'}
      </button>
    </form>
  );
}
