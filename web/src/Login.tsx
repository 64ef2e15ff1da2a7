// The login form, shown when the service has auth on and this browser has no session (GET
// /auth/refresh answers 401, session.ts); its code loads only then. It posts /auth/login, which
// sets the session cookie that every later request and the event stream carry; the server's
// answer is shown in words.
// The logout button (auth on only) posts /auth/logout and starts the page over: the login form;
// a logout the service refused is said beside the button.
import { useState } from 'preact/hooks';
import { post } from './api';

export function LogoutButton(props: { user: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const logout = async () => {
    setBusy(true);
    setError('');
    const answer = await post('/auth/logout');
    // A logout the service could not record (503: the users file busy) left the session as it
    // was: say so and stay, rather than reload into a page that is still logged in.
    if (answer.ok || answer.status === 401) return location.reload();
    setBusy(false);
    setError(answer.error);
  };
  return (
    <>
      <button
        type="button"
        class="logout"
        data-testid="logout"
        disabled={busy}
        onClick={logout}
        title={`logged in as ${props.user}`}
      >
        Log out {props.user}
      </button>
      {error && (
        <span class="error" role="alert" data-testid="logout-error">
          {error}
        </span>
      )}
    </>
  );
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
