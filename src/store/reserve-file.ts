// A file whose room is taken while the disk has room and which is then rewritten in place: no new
// blocks are needed, so it can still be written on a full disk. What a full disk keeps out of the
// database goes here until the database takes it (the active alerts, the wall clock record), so a
// restart on a full disk still knows it.
import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { parseJson } from '../shared/json.js';
import { privateFile } from './file-modes.js';

export class ReserveFile {
  /** Whether the file holds something (it is blanked once the database has it). */
  private holding = true;

  constructor(
    private readonly file: string,
    private readonly bytes: number,
    private readonly what: string,
  ) {
    this.take();
  }

  /** Takes the room when there is room (a start on a full disk goes without a reserve). */
  private take(): void {
    try {
      if (statSync(this.file).size >= this.bytes) return;
    } catch {
      // not there yet
    }
    try {
      privateFile(this.file, true);
      const fd = openSync(this.file, 'r+');
      try {
        writeSync(fd, Buffer.alloc(this.bytes, 0x20), 0, this.bytes, 0);
      } finally {
        closeSync(fd);
      }
      this.holding = false;
    } catch {
      // no room
    }
  }

  /** What the file holds, parsed; null when it is blank, missing or not valid. */
  read(): unknown {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8').trim();
    } catch {
      return null;
    }
    if (!text) return null;
    const parsed = parseJson(text, { maxBytes: this.bytes, what: this.what });
    return parsed.ok ? parsed.value : null;
  }

  /** Writes `value` (null: blank) over the file's own bytes; false when it does not fit or cannot be written. */
  write(value: unknown): boolean {
    if (value === null && !this.holding) return true;
    const text = value === null ? '' : JSON.stringify(value);
    if (Buffer.byteLength(text) > this.bytes) return false;
    const buffer = Buffer.alloc(this.bytes, 0x20);
    buffer.write(text);
    try {
      if (statSync(this.file).size < this.bytes) return false;
      const fd = openSync(this.file, 'r+');
      try {
        writeSync(fd, buffer, 0, this.bytes, 0);
      } finally {
        closeSync(fd);
      }
    } catch {
      return false;
    }
    this.holding = value !== null;
    return true;
  }
}
