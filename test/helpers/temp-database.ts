// A real SQLite database in a temp dir of its own, closed and removed when the test ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { openDatabase } from '../../src/store/db.js';

export function tempDatabase(t: Test, prefix: string): { dir: string; db: ReturnType<typeof openDatabase> } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, db };
}
