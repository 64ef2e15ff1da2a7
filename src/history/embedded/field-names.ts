// Field names of the embedded history store: `fields.jsonl`, one `[id, name, last seen]` line
// per new field or per refresh of its last-seen time (at most hourly), appended; the last line
// of an id wins. Rewritten compactly on open and while running when old lines outnumber the
// fields, and without the fields the store forgets (field-ids.ts). A rewrite states the next free
// id, on two `{"next": id}` lines: forgetting leaves gaps in the ids, so the ids read no longer
// tell which a damaged line may have held, and one damaged line must not lose it.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log.js';
import { writePrivateFile } from '../../store/file-modes.js';

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
  /** The text of those lines: a rewrite keeps them as they are (what they held is not known). */
  damagedLines: string[];
  /**
   * The lowest id a new field may take: the next free id the last rewrite stated or one past every
   * id read, whichever is higher, plus one per damaged line (ids appended since that rewrite have
   * no gaps, so a damaged line may have held the one above).
   */
  next: number;
  /** Lines the file holds now. */
  lines: number;
}

export function readNames(dir: string): NamesRead {
  const file = path.join(dir, NAMES_FILE);
  if (!existsSync(file)) return { entries: [], damaged: 0, damagedLines: [], lines: 0, next: 1 };
  const byId = new Map<number, FieldEntry>();
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const torn = !text.endsWith('\n');
  const damaged: string[] = [];
  let stated = 1;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (!l) continue;
    try {
      const read = JSON.parse(l) as unknown;
      const next = (read as { next?: unknown } | null)?.next;
      if (Number.isInteger(next)) {
        stated = Math.max(stated, next as number);
        continue;
      }
      const [id, name, last] = read as [number, string, number];
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
  const highest = entries.reduce((h, e) => Math.max(h, e.id), 0);
  const next = Math.max(stated, highest + 1) + damaged.length;
  // Rewrite when mostly stale, or when a torn line would swallow the next append. Damaged lines
  // are kept as they are: what they held is not known, and the next start must see them too.
  const rewrite = compactionDue(lines.length, entries.length, damaged.length) || torn;
  if (rewrite) rewriteNames(dir, entries, damaged, next);
  const kept = rewrite ? entries.length + damaged.length + NEXT_LINES : lines.filter(Boolean).length;
  return { entries, damaged: damaged.length, damagedLines: damaged, lines: kept, next };
}

/** Whether a names file of `lines` lines holding `entries` fields is mostly stale lines. */
export function compactionDue(lines: number, entries: number, damaged: number): boolean {
  return lines > 2 * entries + damaged + NEXT_LINES + 100;
}

/** Lines stating the next free id in a rewritten file: one of them may be damaged. */
const NEXT_LINES = 2;

/** The names file anew: one line per entry, the next free id (`next`), then the damaged lines as they were. */
export function rewriteNames(dir: string, entries: FieldEntry[], damagedLines: string[], next: number): void {
  const stated = `${JSON.stringify({ next })}\n`.repeat(NEXT_LINES);
  // Synced before it replaces the old file: a power cut must not leave an empty one (every id would be free).
  writePrivateFile(
    path.join(dir, NAMES_FILE),
    entries.map(line).join('') + stated + damagedLines.map((l) => `${l}\n`).join(''),
  );
}

const line = (e: FieldEntry) => `${JSON.stringify([e.id, e.name, e.last])}\n`;

export function appendNames(dir: string, entries: FieldEntry[]): void {
  if (entries.length) appendFileSync(path.join(dir, NAMES_FILE), entries.map(line).join(''));
}

/** The names file as a running store keeps it: its lines counted, its damaged lines kept for a rewrite. */
export class NamesFile {
  private lines = 0;
  private damagedLines: string[] = [];

  constructor(private readonly dir: string) {}

  /** The file's entries; lines that do not read are logged. */
  read(log: Logger): NamesRead {
    const read = readNames(this.dir);
    const file = path.join(this.dir, NAMES_FILE);
    if (read.damaged)
      log.warn(
        { file, lines: read.damaged },
        `history: ${read.damaged} line(s) of ${file} do not read (damaged); the fields they named are not listed and their history cannot be read by name; new fields do not take their ids`,
      );
    this.damagedLines = read.damagedLines;
    this.lines = read.lines;
    return read;
  }

  append(entries: FieldEntry[]): void {
    appendNames(this.dir, entries);
    this.lines += entries.length;
  }

  /** Whether the file of `fields` fields is mostly stale lines. */
  stale(fields: number): boolean {
    return compactionDue(this.lines, fields, this.damagedLines.length);
  }

  /** The file anew with `entries`; `next`: the lowest id a new field may take. */
  rewrite(entries: FieldEntry[], next: number): void {
    rewriteNames(this.dir, entries, this.damagedLines, next);
    this.lines = entries.length + this.damagedLines.length + NEXT_LINES;
  }
}
