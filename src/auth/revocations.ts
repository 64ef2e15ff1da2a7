// What changes to the users file have ended, kept in a file of its own (`revocations.json` in the
// data dir, mode 0600), so that an older users.json put back (a copy, a hand edit) cannot bring
// it back: per user, the session generation its last logout, password change or removal reached
// (a session holds only at the highest of this and the users file's), and the digests of its API
// tokens revoked, replaced or removed with a password change or the user (never let in again).
// One rule for all: the users file as read is lifted by this record (lift), and what a change
// takes away is added to it (ended) before the users file is written, under the users file's lock
// (users-lock.ts; the CLI and the service both write it). The old password, a role, a removed user
// come back with an older file: they are what the file says, not something ended.
// `logouts.json`, the floors of the release before (logouts only), is read too; its floors are
// carried into this file at its first write, and it is removed then. A file whose text is not a
// record (damaged) is said and read as empty: the users file's own state still holds, as before
// this file existed. A file that is there but cannot be read (EIO, EMFILE, EACCES, EISDIR) is
// `unreadable`: no change may be written then (the record written anew would lose every revocation
// before it), and the service lets nobody in (users.ts).
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from '../store/file-modes.js';
import { WRITER } from './users-lock.js';

export const REVOCATIONS_FILE = 'revocations.json';
/** The logouts' floors as the release before kept them ({"version": 1, "users": {NAME: N}}). */
export const LOGOUTS_FILE = 'logouts.json';
const VERSION = 1;

interface Ended {
  /** The lowest session generation a session may carry. */
  sessionGen: number;
  /** sha256 digests of API tokens that must not let anyone in again. */
  tokens: string[];
}

/** The part of a users-file record this record acts on. */
export interface Revocable {
  stamp: string;
  sessionGen?: number;
  token?: string;
}

const isGen = (gen: unknown) => Number.isSafeInteger(gen) && (gen as number) >= 0;
const isDigest = (d: unknown) => typeof d === 'string' && /^[0-9a-f]{64}$/.test(d);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Either file there but not readable: its path and the reason. */
export interface Unreadable {
  file: string;
  reason: string;
}

function readText(file: string): string | null | Unreadable {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? null : { file, reason: code ?? (e as Error).message };
  }
}

const READ_AS_EMPTY =
  'read as empty: a users.json put back from before a logout, a password change or a token revoked would bring back what it ended; the next change writes it anew';

/**
 * The record in `dataDir` (both files), what is wrong with either's text (said, read as empty), and
 * the first that could not be read at all (then nothing may be written, see users.ts).
 */
export function readRevocations(dataDir: string): {
  users: Map<string, Ended>;
  problems: string[];
  unreadable: Unreadable | null;
} {
  const users = new Map<string, Ended>();
  const problems: string[] = [];
  let unreadable: Unreadable | null = null;
  const entry = (name: string) => {
    let e = users.get(name);
    if (!e) users.set(name, (e = { sessionGen: 0, tokens: [] }));
    return e;
  };
  const parse = (file: string, shape: string, take: (users: Record<string, unknown>) => boolean) => {
    const text = readText(file);
    if (text === null) return;
    if (typeof text !== 'string') return void (unreadable ??= text);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {}
    const body = isRecord(json) && json.version === VERSION ? json.users : undefined;
    if (!isRecord(body) || !take(body)) problems.push(`auth: ${file} is not a ${shape}; ${READ_AS_EMPTY}`);
  };
  parse(
    path.join(dataDir, REVOCATIONS_FILE),
    `revocations file (expected {"version": ${VERSION}, "users": {NAME: {"sessionGen": N, "tokens": [SHA256]}}})`,
    (body) => {
      const ok = Object.values(body).every(
        (u) => isRecord(u) && isGen(u.sessionGen) && Array.isArray(u.tokens) && u.tokens.every(isDigest),
      );
      if (ok)
        for (const [name, u] of Object.entries(body as Record<string, Ended>)) {
          entry(name).sessionGen = u.sessionGen;
          entry(name).tokens = [...new Set(u.tokens)];
        }
      return ok;
    },
  );
  parse(
    path.join(dataDir, LOGOUTS_FILE),
    `logouts file (expected {"version": ${VERSION}, "users": {NAME: N}})`,
    (body) => {
      const ok = Object.values(body).every(isGen);
      if (ok)
        for (const [name, gen] of Object.entries(body as Record<string, number>))
          entry(name).sessionGen = Math.max(entry(name).sessionGen, gen);
      return ok;
    },
  );
  return { users, problems, unreadable };
}

export class Revocations {
  private users = new Map<string, Ended>();
  /** What is wrong with the files' text, as last read. */
  problems: string[] = [];
  /** A file that is there but could not be read, as last read: nothing may be written. */
  unreadable: Unreadable | null = null;

  constructor(readonly dataDir: string) {}

  get file(): string {
    return path.join(this.dataDir, REVOCATIONS_FILE);
  }

  load(): void {
    ({ users: this.users, problems: this.problems, unreadable: this.unreadable } = readRevocations(this.dataDir));
  }

  /** Changes when either file may have changed on disk. */
  signature(): string {
    return [REVOCATIONS_FILE, LOGOUTS_FILE]
      .map((f) => {
        try {
          const s = statSync(path.join(this.dataDir, f));
          return `${s.ino}:${s.size}:${s.mtimeMs}`;
        } catch {
          return 'absent';
        }
      })
      .join('/');
  }

  /**
   * `rec` as this record lets it be: its session generation at least the floor, no token that was
   * revoked. What it took away is named in `notes` (a restore to be told of).
   */
  lift<R extends Revocable>(name: string, rec: R, notes: string[]): R {
    const ended = this.users.get(name);
    if (!ended) return rec;
    let out = rec;
    if (ended.sessionGen > (rec.sessionGen ?? 0)) out = { ...out, sessionGen: ended.sessionGen };
    if (rec.token !== undefined && ended.tokens.includes(rec.token)) {
      const { token: _revoked, ...rest } = out;
      out = rest as R;
      notes.push(`the API token of ${name} in the users file was revoked before: it stays refused`);
    }
    return out;
  }

  /**
   * What changing `before` into `after` ends: a removed user's or a changed password's sessions
   * (the generation goes one above), a token revoked, replaced or removed with them. The ended
   * generations are set in `after` too (the users file then says them as well). Returns whether
   * anything was ended that the file does not yet keep.
   */
  end<R extends Revocable>(before: Map<string, R>, after: Map<string, R>): boolean {
    let changed = false;
    const entry = (name: string) => {
      let e = this.users.get(name);
      if (!e) this.users.set(name, (e = { sessionGen: 0, tokens: [] }));
      return e;
    };
    for (const [name, was] of before) {
      const now = after.get(name);
      const floor = Math.max(was.sessionGen ?? 0, this.users.get(name)?.sessionGen ?? 0);
      let gen = now?.sessionGen ?? 0;
      if (!now || now.stamp !== was.stamp) gen = Math.max(gen, floor + 1);
      if (now && gen !== (now.sessionGen ?? 0)) after.set(name, { ...now, sessionGen: gen });
      if (gen > (this.users.get(name)?.sessionGen ?? 0)) {
        entry(name).sessionGen = gen;
        changed = true;
      }
      if (was.token !== undefined && now?.token !== was.token && !entry(name).tokens.includes(was.token)) {
        entry(name).tokens.push(was.token);
        changed = true;
      }
    }
    return changed;
  }

  /** Write the record (then the release before's file, carried into it, goes). Throws what the write throws. */
  save(): void {
    const users = Object.fromEntries(
      [...this.users]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, e]) => [name, { sessionGen: e.sessionGen, tokens: e.tokens }]),
    );
    writePrivateFile(this.file, `${JSON.stringify({ version: VERSION, users }, null, 2)}\n`, WRITER);
    rmSync(path.join(this.dataDir, LOGOUTS_FILE), { force: true });
  }
}
