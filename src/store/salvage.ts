// A database file that SQLite finds damaged (bytes flipped or cut off by a bad card or a power
// cut: "file is not a database", "database disk image is malformed"). Refusing to start would
// restart the service until systemd gives up, outputs uncontrolled; starting on it would fail
// writes later. So the damaged file is set aside under a name of its own (with its -wal, so
// nothing of it is lost), a new database is made, and every row that can still be read is copied
// into it, table by table: a damaged page loses the rows on it, not the user's other data. What
// was lost is logged and kept in system/status; the stored backups hold the rest.
import { existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.js';
import Database, { type BetterSqlite3 } from './sqlite.js';

type Db = BetterSqlite3.Database;

export interface DamagedDatabase {
  /** Where the damaged file was set aside (kept for the user; nothing deletes it). */
  keptAs: string;
  /** What SQLite said of it. */
  reason: string;
  at: string;
  /** Rows copied into the new database, per table. */
  salvaged: Record<string, number>;
  /** Tables whose rows could not all be read: rows were lost. */
  incomplete: string[];
}

/** Whether an error of opening or checking a database says its file is damaged. */
export function isDamaged(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

/** Null when SQLite's quick check finds the database whole, else what it found first. */
export function quickCheck(db: Db): string | null {
  const result = String(db.pragma('quick_check(1)', { simple: true }));
  return result === 'ok' ? null : result;
}

/** Moves `file` and its -wal and -shm aside under a name with the time in it; the new name. */
export function setAside(file: string, at: Date): string {
  const kept = `${file}.damaged-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`;
  for (const suffix of ['-wal', '-shm', '']) if (existsSync(file + suffix)) renameSync(file + suffix, kept + suffix);
  return kept;
}

/** Copies what can be read of `damagedFile` into the (new, migrated) `db`, table by table. */
export function salvage(db: Db, damagedFile: string, reason: string, at: Date, log?: Logger): DamagedDatabase {
  const report: DamagedDatabase = { keptAs: damagedFile, reason, at: at.toISOString(), salvaged: {}, incomplete: [] };
  const tables = (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all() as string[]
  ).sort();
  let old: Db;
  try {
    old = new Database(damagedFile, { fileMustExist: true });
    old.pragma('user_version');
  } catch (err) {
    log?.warn({ err }, `nothing could be read of the damaged database ${path.basename(damagedFile)}`);
    report.incomplete = tables;
    return report;
  }
  try {
    for (const table of tables) {
      const columns = (db.pragma(`table_info("${table}")`) as { name: string }[]).map((c) => `"${c.name}"`).join(', ');
      const insert = db.prepare(
        `INSERT OR IGNORE INTO "${table}" (${columns}) VALUES (${columns.replace(/[^,\s]+/g, '?')})`,
      );
      let copied = 0;
      try {
        const rows = old.prepare(`SELECT ${columns} FROM "${table}"`).raw().iterate() as Iterable<unknown[]>;
        // Row by row: those read before a damaged page are kept.
        db.transaction(() => {
          try {
            for (const row of rows) copied += insert.run(...row).changes;
          } catch (err) {
            report.incomplete.push(table);
            log?.warn({ err, table }, `rows of table ${table} after a damaged page could not be read`);
          }
        })();
      } catch (err) {
        // A table a later schema added is not in a database of an older one: nothing was lost.
        if (!/^no such table/.test((err as Error).message) && !report.incomplete.includes(table)) {
          report.incomplete.push(table);
          log?.warn({ err, table }, `table ${table} could not be read`);
        }
      }
      report.salvaged[table] = copied;
    }
  } finally {
    old.close();
  }
  return report;
}
