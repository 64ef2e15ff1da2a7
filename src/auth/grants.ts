// What a client was let in with, kept for as long as its connection lives (an HTTP request, an
// SSE stream, a websocket, an MQTT connection): when the users file changes (a logout, or the
// CLI's passwd or remove in another process), every held connection whose grant no longer holds
// is closed; so is one whose session has run out (auth.ts sweeps at every users-file check).
import { sameString } from './password.js';
import type { SessionTiming } from './session.js';
import type { UsersFile } from './users.js';

export type Grant =
  | { kind: 'session'; user: string; stamp: string; gen: number; ends: SessionTiming }
  | { kind: 'password'; user: string; stamp: string }
  | { kind: 'token'; user: string; digest: string };

/**
 * Whether the users file still lets `grant` in: the user exists, the password (and, for a session,
 * the session generation) is unchanged, the token is not revoked. The file is read as
 * revocations.json lets it be (an older file put back lowers no generation, revives no token).
 */
export function grantHolds(users: UsersFile, grant: Grant): boolean {
  const rec = users.get(grant.user);
  if (!rec) return false;
  switch (grant.kind) {
    case 'session':
      return sameString(rec.stamp, grant.stamp) && (rec.sessionGen ?? 0) === grant.gen;
    case 'password':
      return sameString(rec.stamp, grant.stamp);
    case 'token':
      return rec.token !== undefined && sameString(rec.token, grant.digest);
  }
}

interface Held {
  grant: Grant;
  close: () => void;
}

export class HeldConnections {
  private readonly held = new Set<Held>();

  /** Keep `grant` for a live connection; `close` ends it. Returns the release for when it ends. */
  hold(grant: Grant, close: () => void): () => void {
    const entry = { grant, close };
    this.held.add(entry);
    return () => void this.held.delete(entry);
  }

  /** Close every connection whose grant no longer holds; returns how many per user. */
  sweep(holds: (grant: Grant) => boolean): Map<string, number> {
    const closed = new Map<string, number>();
    for (const entry of this.held) {
      if (holds(entry.grant)) continue;
      this.held.delete(entry);
      closed.set(entry.grant.user, (closed.get(entry.grant.user) ?? 0) + 1);
      try {
        entry.close();
      } catch {
        // already gone
      }
    }
    return closed;
  }

  get size(): number {
    return this.held.size;
  }
}
