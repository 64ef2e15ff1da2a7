// The session generation each user's latest logout reached, kept by the service in a file of its
// own (`logouts.json` in the data dir, mode 0600; only the service writes it, one per data dir):
// a session holds only if it carries the highest of this and the users file's generation. So an
// older users.json put back (a copy from before a logout, a hand edit that lowers "sessionGen")
// brings back no session a logout ended; a new login is made at the higher generation. A copy of
// the whole data dir put back brings this file's older state back with it (removing auth-secret
// ends every session). A file that cannot be read is logged and read as empty: the users file's
// generations still hold, as before this file existed; the next logout writes it anew.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.js';
import { writePrivateFile } from '../store/file-modes.js';

export const LOGOUTS_FILE = 'logouts.json';
const VERSION = 1;

export class Logouts {
  private readonly gens = new Map<string, number>();

  private constructor(
    readonly file: string,
    private readonly log: Logger,
  ) {}

  static open(dataDir: string, log: Logger): Logouts {
    const logouts = new Logouts(path.join(dataDir, LOGOUTS_FILE), log);
    const read = readLogouts(logouts.file);
    if ('problem' in read) log.error(read.problem);
    else for (const [user, gen] of read.gens) logouts.gens.set(user, gen);
    return logouts;
  }

  /** The generation `user`'s latest logout reached (0: none recorded). */
  floor(user: string): number {
    return this.gens.get(user) ?? 0;
  }

  /**
   * Keep `gen` as `user`'s floor: at once for this run, and in the file. A file that cannot be
   * written (a full card) is logged; the logout itself goes on (the users file records it too).
   */
  record(user: string, gen: number): void {
    if (gen <= this.floor(user)) return;
    this.gens.set(user, gen);
    const body = `${JSON.stringify({ version: VERSION, users: Object.fromEntries([...this.gens].sort(([a], [b]) => a.localeCompare(b))) }, null, 2)}\n`;
    try {
      writePrivateFile(this.file, body);
    } catch (e) {
      this.log.error(
        `auth: cannot write ${this.file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): the logout of ${user} holds, but a users.json put back from before it would bring back its sessions after a restart`,
      );
    }
  }
}

/**
 * The generations `file` holds (none: no file), or what a start logs of one that is not a logouts
 * file (`edgeblocks check` warns of it too). A file that cannot be read at all throws.
 */
export function readLogouts(file: string): { gens: Map<string, number> } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { gens: new Map() };
    throw e;
  }
  let users: unknown;
  try {
    const json = JSON.parse(text) as { version?: unknown; users?: unknown };
    users = json.version === VERSION ? json.users : undefined;
  } catch {
    users = undefined;
  }
  const isGen = (gen: unknown) => Number.isSafeInteger(gen) && (gen as number) >= 0;
  if (typeof users !== 'object' || users === null || Array.isArray(users) || !Object.values(users).every(isGen))
    return {
      problem: `auth: ${file} is not a logouts file (expected {"version": ${VERSION}, "users": {NAME: N}}); read as empty: a users.json put back from before a logout would bring back that logout's sessions; the next logout writes it anew`,
    };
  return { gens: new Map(Object.entries(users as Record<string, number>)) };
}
