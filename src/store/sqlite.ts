// The SQLite binding for the running Node. better-sqlite3 12 is the last release that loads on
// Node 20, and it aborts the process on Node 24 whenever the garbage collector finalizes a
// statement (its node::ObjectWrap cleanup hook meets a null environment). 13 fixes that but is
// Node-API 10, which Node 20 lacks (loading it there crashes, it does not throw). Both are
// installed: 13 as an optional dependency under an alias, which npm skips where it cannot build.
// Their JavaScript API is the same.
import type BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Node 22 and later use better-sqlite3 13; Node 20 uses 12. */
export const SQLITE_PACKAGE =
  Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-napi10' : 'better-sqlite3';

function load(): typeof BetterSqlite3 {
  try {
    return require(SQLITE_PACKAGE) as typeof BetterSqlite3;
  } catch (e) {
    throw new Error(
      `cannot load the SQLite module ${SQLITE_PACKAGE} for Node ${process.version}: ${(e as Error).message}. Run "npm ci" again with this Node version`,
    );
  }
}

const Database = load();
export default Database;
export type { BetterSqlite3 };
