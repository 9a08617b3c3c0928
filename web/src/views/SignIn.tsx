import { useEffect, useState, type FormEvent } from 'react';
import type { ApiError } from '../api/client';
import { api, session, unwrap } from '../api/client';
import { Link } from '../router';
import { formatWait, useWait } from '../ui/wait';

/** Sign-in form. A 429 from the login throttle is shown with its wait, counted down. */
export function SignIn({ onSignedIn, expired }: { onSignedIn: () => void; expired: boolean }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const throttle = useWait();

  useEffect(() => {
    document.title = 'Sign in · Mailroom';
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const token = await unwrap(api.POST('/api/v2/sessions', { body: { login_name: login, password } }));
      session.set(token.key, token.id);
      onSignedIn();
    } catch (err) {
      const e = err as ApiError;
      if (e.status === 429) {
        throttle.start(e.retryAfter ?? 60);
        setError(null);
      } else setError(e.status === 401 ? 'The login name or password is wrong.' : e.message);
    } finally {
      setBusy(false);
    }
  };

  const wait = throttle.seconds;
  return (
    <main className="sign-in">
      <form className="card sign-in-card" onSubmit={(e) => void submit(e)}>
        <div className="brand large" aria-hidden="true">
          ✉ Mailroom
        </div>
        <h1>Sign in</h1>
        {expired && (
          <div className="notice info" role="status">
            Your session has ended. Sign in again to go on where you were.
          </div>
        )}
        {wait > 0 && (
          <div className="notice error" role="alert">
            Too many failed sign-ins. Try again in {formatWait(wait)}.
          </div>
        )}
        {error && (
          <div className="notice error" role="alert">
            {error}
          </div>
        )}
        <label>
          Login name
          <input name="login" autoComplete="username" required value={login} onChange={(e) => setLogin(e.target.value)} />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <button className="button primary" type="submit" disabled={busy || wait > 0}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p>
          <Link to="password-reset">Forgot password?</Link>
        </p>
      </form>
    </main>
  );
}
