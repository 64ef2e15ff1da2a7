// The mark of a running service in the data dir: set at start, removed at a clean stop, so the
// next start tells an unclean stop (the alerts' unclean-stop alert).
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import { privateFile } from '../store/file-modes.js';

/** The mark of an earlier version: a settings row set to '1' while running. */
const RUNNING_KEY = 'alerts_service_running';
export const RUNNING_FILE = 'edgeblocks.running';

/**
 * Marks the service as running; true when the previous run did not stop cleanly. The mark is an
 * empty file that a clean stop removes: a removal needs no space, so a stop on a full disk is
 * still seen as clean (a row set to '0' could not be written then, and the next start sent an
 * unclean-stop alert for a clean stop).
 */
export function markRunning(dataDir: string, db: Db): boolean {
  const file = path.join(dataDir, RUNNING_FILE);
  let unclean = existsSync(file);
  const legacy = db.prepare('SELECT value FROM settings WHERE key = ?').get(RUNNING_KEY) as
    | { value: string }
    | undefined;
  if (legacy) {
    unclean ||= legacy.value === '1';
    try {
      db.prepare('DELETE FROM settings WHERE key = ?').run(RUNNING_KEY);
    } catch {
      // a full disk: the row is read again at the next start, which is then called unclean once more
    }
  }
  try {
    privateFile(file, true);
  } catch {
    // no inode left: the next start cannot tell an unclean stop
  }
  return unclean;
}

export function markStopped(dataDir: string): void {
  rmSync(path.join(dataDir, RUNNING_FILE), { force: true });
}
