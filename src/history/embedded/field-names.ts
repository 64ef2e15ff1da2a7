// Field names of the embedded history store: `fields.jsonl`, one `[id, name, last seen]` line
// per new field or per refresh of its last-seen time (at most hourly), appended; the last line
// of an id wins. Rewritten compactly on open when old lines outnumber the fields.
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const NAMES_FILE = 'fields.jsonl';

export interface FieldEntry {
  id: number;
  name: string;
  last: number;
}

export interface NamesRead {
  entries: FieldEntry[];
  /**
   * Lines that do not read, but the last one when the file does not end its line (a torn
   * append): damaged on the card. Their ids are unknown, so new fields must not take ids the
   * records may hold for them (field-ids.ts).
   */
  damaged: number;
}

export function readNames(dir: string): NamesRead {
  const file = path.join(dir, NAMES_FILE);
  if (!existsSync(file)) return { entries: [], damaged: 0 };
  const byId = new Map<number, FieldEntry>();
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const torn = !text.endsWith('\n');
  const damaged: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (!l) continue;
    try {
      const [id, name, last] = JSON.parse(l) as [number, string, number];
      if (Number.isInteger(id) && typeof name === 'string' && Number.isFinite(last)) {
        byId.set(id, { id, name, last });
        continue;
      }
    } catch {
      // Below.
    }
    // A torn last line (crash during an append): the data records written after it name no new field.
    if (!(torn && i === lines.length - 1)) damaged.push(l);
  }
  const entries = [...byId.values()];
  // Rewrite when mostly stale, or when a torn line would swallow the next append. Damaged lines
  // are kept as they are: what they held is not known, and the next start must see them too.
  if (lines.length > 2 * entries.length + damaged.length + 100 || torn) {
    writeFileSync(`${file}.tmp`, entries.map(line).join('') + damaged.map((l) => `${l}\n`).join(''));
    renameSync(`${file}.tmp`, file);
  }
  return { entries, damaged: damaged.length };
}

const line = (e: FieldEntry) => `${JSON.stringify([e.id, e.name, e.last])}\n`;

export function appendNames(dir: string, entries: FieldEntry[]): void {
  if (entries.length) appendFileSync(path.join(dir, NAMES_FILE), entries.map(line).join(''));
}
