// A database file that SQLite finds damaged (bytes flipped or cut off by a bad card or a power
// cut: "file is not a database", "database disk image is malformed"). Refusing to start would
// restart the service until systemd gives up, outputs uncontrolled; starting on it would fail
// writes later. So every row that can still be read is copied into a new database, table by
// table (a damaged page loses the rows on it, not the user's other data), the damaged file is
// set aside under a name of its own (with its -wal: nothing of it is deleted) and the new one
// takes its place. What was lost is logged, kept in system/status and alerted.
//
// A kill at any step leaves a state the next start finishes: the new database is made under a
// name of its own and takes the real name last; the report travels inside it.
import { existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.js';
import { FixableError } from '../shared/errors.js';
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

/** The settings row that carries the report from the recovery to the start that opens the result. */
const REPORT_KEY = 'damaged_database';
const salvageFile = (file: string) => `${file}.salvage`;
const SIDE_FILES = ['-wal', '-shm', '-journal'];

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

/** A recovery killed after the damaged file was set aside: its finished copy takes the real name. */
export function finishRecovery(file: string): void {
  if (!existsSync(file) && existsSync(salvageFile(file))) renameSync(salvageFile(file), file);
}

/**
 * Copies what can be read of the damaged `file` into a new database (made by `openNew`), sets
 * `file` aside and puts the copy in its place. Throws FixableError when that cannot be done.
 */
export function recover(file: string, error: unknown, openNew: (file: string) => Db, log?: Logger): void {
  const at = new Date();
  const reason = (error as Error).message;
  const temp = salvageFile(file);
  const kept = `${file}.damaged-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`;
  try {
    // Left by a recovery killed before it set the damaged file aside: it starts over.
    for (const suffix of ['', ...SIDE_FILES]) rmSync(temp + suffix, { force: true });
    const db = openNew(temp);
    try {
      const report = salvage(db, file, kept, reason, at, log);
      db.prepare('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)').run(REPORT_KEY, JSON.stringify(report));
    } finally {
      // Folds the WAL into the file: the copy is one file when it is renamed.
      db.close();
    }
    for (const suffix of [...SIDE_FILES, '']) if (existsSync(file + suffix)) renameSync(file + suffix, kept + suffix);
    renameSync(temp, file);
  } catch (err) {
    throw new FixableError(
      `database ${file} is damaged (${reason}) and could not be replaced by what can be read of it (${(err as Error).message}): stop the service, move it away, start again and load a stored backup`,
      'cannot start',
    );
  }
}

/**
 * `db`, after handing a recovery's report (carried inside it) to `onDamaged` and the log. The
 * report stays in the database until `forgetReport` (the alert is out): a start that fails before
 * it (a port in use, a bad setting) would otherwise have lost it, and nobody would be told.
 */
export function withReport(db: Db, log?: Logger, onDamaged?: (report: DamagedDatabase) => void): Db {
  const text = db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(REPORT_KEY);
  if (typeof text !== 'string') return db;
  const report = JSON.parse(text) as DamagedDatabase;
  const rows = Object.entries(report.salvaged)
    .filter(([, n]) => n > 0)
    .map(([table, n]) => `${n} ${table}`)
    .join(', ');
  const lost = report.incomplete.length
    ? `; rows were lost from ${report.incomplete.join(', ')}: a stored backup (backups/) has them as they were when saved`
    : '';
  log?.error(
    { damaged: report },
    `database was damaged (${report.reason}); kept as ${path.basename(report.keptAs)}; a new one holds what could be read of it (${rows || 'nothing'})${lost}`,
  );
  onDamaged?.(report);
  return db;
}

/** The recovery's report has been told (the alert is recorded): later starts do not repeat it. */
export function forgetReport(db: Db): void {
  try {
    db.prepare('DELETE FROM settings WHERE key = ?').run(REPORT_KEY);
  } catch {
    // a full disk: the next start reports it again
  }
}

/** Copies what can be read of `damagedFile` into the (new, migrated) `db`, table by table. */
function salvage(db: Db, damagedFile: string, keptAs: string, reason: string, at: Date, log?: Logger): DamagedDatabase {
  const report: DamagedDatabase = { keptAs, reason, at: at.toISOString(), salvaged: {}, incomplete: [] };
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
    for (const table of tables) report.salvaged[table] = copyTable(db, old, table, report, log);
  } finally {
    old.close();
  }
  return report;
}

/** Copies the rows of `table` row by row: those read before a damaged page are kept. */
function copyTable(db: Db, old: Db, table: string, report: DamagedDatabase, log?: Logger): number {
  const names = (db.pragma(`table_info("${table}")`) as { name: string }[]).map((c) => `"${c.name}"`);
  const insert = db.prepare(
    `INSERT OR IGNORE INTO "${table}" (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
  );
  let copied = 0;
  let rows: Iterable<unknown[]>;
  try {
    rows = old
      .prepare(`SELECT ${names.join(', ')} FROM "${table}"`)
      .raw()
      .iterate() as Iterable<unknown[]>;
  } catch (err) {
    // A table a later schema added is not in a database of an older one: nothing was lost.
    if (!/^no such table/.test((err as Error).message)) {
      report.incomplete.push(table);
      log?.warn({ err, table }, `table ${table} could not be read`);
    }
    return 0;
  }
  db.transaction(() => {
    try {
      for (const row of rows) copied += insert.run(...row).changes;
    } catch (err) {
      report.incomplete.push(table);
      log?.warn({ err, table }, `rows of table ${table} after a damaged page could not be read`);
    }
  })();
  return copied;
}
