// Whether this browser has a session (auth on), who it is and with which role: GET /auth/refresh,
// asked by index.html's first script, or again after a login.
import { takeEarly } from './early';

/** Whether a login is needed, and who is logged in, with which role (null with auth off). */
export async function sessionState(): Promise<{ loginNeeded: boolean; user: string | null; role: string | null }> {
  const res = (await takeEarly('session')?.catch(() => undefined)) ?? (await fetch('/auth/refresh'));
  if (res.status === 401) return { loginNeeded: true, user: null, role: null };
  const body = (await res.json().catch(() => ({}))) as {
    enabled?: boolean;
    username?: string | null;
    role?: string | null;
  };
  return body.enabled
    ? { loginNeeded: false, user: body.username ?? null, role: body.role ?? null }
    : { loginNeeded: false, user: null, role: null };
}
