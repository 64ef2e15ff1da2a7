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

export function readNames(dir: string): FieldEntry[] {
  const file = path.join(dir, NAMES_FILE);
  if (!existsSync(file)) return [];
  const byId = new Map<number, FieldEntry>();
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  for (const line of lines) {
    if (!line) continue;
    try {
      const [id, name, last] = JSON.parse(line) as [number, string, number];
      if (Number.isInteger(id) && typeof name === 'string' && Number.isFinite(last)) byId.set(id, { id, name, last });
    } catch {
      // A torn last line (crash during an append): the data records written after it name no new field.
    }
  }
  const entries = [...byId.values()];
  // Rewrite when mostly stale, or when a torn line would swallow the next append.
  if (lines.length > 2 * entries.length + 100 || !text.endsWith('\n')) {
    writeFileSync(`${file}.tmp`, entries.map(line).join(''));
    renameSync(`${file}.tmp`, file);
  }
  return entries;
}

const line = (e: FieldEntry) => `${JSON.stringify([e.id, e.name, e.last])}\n`;

export function appendNames(dir: string, entries: FieldEntry[]): void {
  if (entries.length) appendFileSync(path.join(dir, NAMES_FILE), entries.map(line).join(''));
}
