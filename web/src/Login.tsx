// The login form, shown when the service has auth on and this browser has no session
// (GET /auth/refresh answers 401). It posts /auth/login, which sets the session cookie that
// every later request and the event stream carry; the server's answer is shown in words.
import { useState } from 'preact/hooks';
import { post } from './api';

/** True when a session exists or auth is off; false when a login is needed. */
export async function haveSession(): Promise<boolean> {
  const res = await fetch('/auth/refresh');
  return res.status !== 401;
}

export function Login(props: { onDone: () => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const form = new FormData(ev.currentTarget as HTMLFormElement);
    const username = String(form.get('username') ?? '').trim();
    const password = String(form.get('password') ?? '');
    if (!username || !password) return setError('enter your user name and password');
    setBusy(true);
    const answer = await post('/auth/login', { username, password });
    setBusy(false);
    if (answer.ok) props.onDone();
    else setError(answer.status === 401 ? 'wrong user name or password' : answer.error);
  };
  return (
    <form class="card login" data-testid="login" onSubmit={submit}>
      <h2>edgeblocks: log in</h2>
      <p>This controller asks for a login (auth is on).</p>
      <label>
        User name <input name="username" autocomplete="username" required />
      </label>
      <label>
        Password <input name="password" type="password" autocomplete="current-password" required />
      </label>
      <button type="submit" disabled={busy}>
        Log in
      </button>
      {error && (
        <p class="error" role="alert" data-testid="login-error">
          {error}
        </p>
      )}
    </form>
  );
}
