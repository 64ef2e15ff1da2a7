// `edgeblocks check` on the data dir: what a start would refuse, read without the lock and without writing.
import { accessSync, constants, existsSync } from 'node:fs';
import { Auth } from '../auth/auth.js';
import type { Config } from '../config.js';
import { checkDatastoreSize } from '../store/check-datastore-size.js';
import { checkSchema } from '../store/db.js';

/**
 * `edgeblocks check`: what a start would refuse in the data dir (no user with auth on, a session
 * key that is not one, a database a newer release migrated), read without taking its lock (the
 * service runs beside an upgrade) and without writing (the installer runs as root). Answers what a
 * start would warn of (a users file that is not one, a datastore past its bound).
 */
export function checkDataDir(config: Config): string[] {
  // The installed service's dir is 0700, its user's: a user's check without sudo reads nothing in it.
  const unreadable = unreadableDir(config.dataDir);
  if (unreadable)
    return [
      `the data dir ${config.dataDir} cannot be read as this user (${unreadable}), so nothing in it was checked; run the check as root: sudo edgeblocks check`,
    ];
  const warnings = Auth.check({ enabled: config.auth, dataDir: config.dataDir });
  checkSchema(config.dataDir);
  const pastBound = checkDatastoreSize(config.dataDir);
  if (pastBound) warnings.push(pastBound);
  // A misspelt --data-dir would pass as the real one; a fresh install's (made by the first start) holds.
  if (!existsSync(config.dataDir))
    warnings.push(
      `the data dir ${config.dataDir} does not exist, so nothing in it was checked (a start makes it; check --data-dir if it should be there)`,
    );
  return warnings;
}

/** The error code when `dir` exists but this user may not list or enter it, else null. */
function unreadableDir(dir: string): string | null {
  try {
    accessSync(dir, constants.R_OK | constants.X_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? code : null;
  }
}
