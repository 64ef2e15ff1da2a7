// The active alerts a full disk kept out of the database, in a reserve file (store/reserve-file.ts),
// so a restart on a full disk still knows which alerts were sent: it neither sends them again
// nor resolves them twice.
import { ReserveFile } from '../store/reserve-file.js';
import type { ActiveAlert } from './types.js';

export const RESERVE_FILE = 'alerts-active.reserve';
/** The outbox rows sent whose delete a full disk refused (store.ts). */
export const SENT_RESERVE_FILE = 'alerts-sent.reserve';
export const SENT_RESERVE_BYTES = 8 * 1024;
/** Room for the changes of a few hundred active alerts. */
const RESERVE_BYTES = 64 * 1024;

/** key -> the alert as it is now, or null: it was resolved. */
export type ActiveChanges = Map<string, ActiveAlert | null>;

export class ActiveReserve {
  private readonly file: ReserveFile;

  constructor(file: string) {
    this.file = new ReserveFile(file, RESERVE_BYTES, 'the reserved active alerts');
  }

  read(): ActiveChanges {
    const value = this.file.read();
    if (!Array.isArray(value)) return new Map();
    return new Map(
      (value as unknown[]).filter(
        (e): e is [string, ActiveAlert | null] => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string',
      ),
    );
  }

  /** Writes the changes over the file's own bytes (none: blank); false when they do not fit or it cannot be written. */
  write(changes: ActiveChanges): boolean {
    return this.file.write(changes.size ? [...changes] : null);
  }
}
