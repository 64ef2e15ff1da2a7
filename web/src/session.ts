// Whether this browser has a session (auth on) and who it is: GET /auth/refresh, asked by
// index.html's first script, or again after a login.
import { takeEarly } from './early';

/** Whether a login is needed, and who is logged in (null with auth off). */
export async function sessionState(): Promise<{ loginNeeded: boolean; user: string | null }> {
  const res = (await takeEarly('session')?.catch(() => undefined)) ?? (await fetch('/auth/refresh'));
  if (res.status === 401) return { loginNeeded: true, user: null };
  const body = (await res.json().catch(() => ({}))) as { enabled?: boolean; username?: string | null };
  return { loginNeeded: false, user: body.enabled ? (body.username ?? null) : null };
}
