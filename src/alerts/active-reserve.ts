// The active alerts a full disk kept out of the database, in a file whose room was taken while
// there was room. It is rewritten in place (no new blocks are needed), so a restart on a full
// disk still knows which alerts were sent: it neither sends them again nor resolves them twice.
import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { privateFile } from '../store/file-modes.js';
import { parseJson } from '../shared/json.js';
import type { ActiveAlert } from './types.js';

export const RESERVE_FILE = 'alerts-active.reserve';
/** Room for the changes of a few hundred active alerts. */
const RESERVE_BYTES = 64 * 1024;

/** key -> the alert as it is now, or null: it was resolved. */
export type ActiveChanges = Map<string, ActiveAlert | null>;

export class ActiveReserve {
  /** Whether the file holds changes (it is blanked once they are in the database). */
  private holding = true;

  constructor(private readonly file: string) {
    this.take();
  }

  /** Takes the room when there is room (a start on a full disk goes without a reserve). */
  private take(): void {
    try {
      if (statSync(this.file).size >= RESERVE_BYTES) return;
    } catch {
      // not there yet
    }
    try {
      privateFile(this.file, true);
      const fd = openSync(this.file, 'r+');
      try {
        writeSync(fd, Buffer.alloc(RESERVE_BYTES, 0x20), 0, RESERVE_BYTES, 0);
      } finally {
        closeSync(fd);
      }
      this.holding = false;
    } catch {
      // no room: a restart on a full disk may then send an active alert again
    }
  }

  read(): ActiveChanges {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8').trim();
    } catch {
      return new Map();
    }
    if (!text) return new Map();
    const parsed = parseJson(text, { maxBytes: RESERVE_BYTES, what: 'the reserved active alerts' });
    if (!parsed.ok || !Array.isArray(parsed.value)) return new Map();
    return new Map(
      (parsed.value as unknown[]).filter(
        (e): e is [string, ActiveAlert | null] => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string',
      ),
    );
  }

  /** Writes the changes over the file's own bytes; false when they do not fit or it cannot be written. */
  write(changes: ActiveChanges): boolean {
    if (changes.size === 0 && !this.holding) return true;
    const text = changes.size ? JSON.stringify([...changes]) : '';
    const buffer = Buffer.alloc(RESERVE_BYTES, 0x20);
    if (Buffer.byteLength(text) > RESERVE_BYTES) return false;
    buffer.write(text);
    try {
      if (statSync(this.file).size < RESERVE_BYTES) return false;
      const fd = openSync(this.file, 'r+');
      try {
        writeSync(fd, buffer, 0, RESERVE_BYTES, 0);
      } finally {
        closeSync(fd);
      }
    } catch {
      return false;
    }
    this.holding = changes.size > 0;
    return true;
  }
}
