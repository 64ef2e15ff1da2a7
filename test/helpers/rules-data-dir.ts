import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { openDatabase } from '../../src/store/db.js';

/** A data dir whose database holds `rules` as the controller's alert rules document, as a release stored it. */
export function dataDirWithRules(t: Test, rules: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-rules-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(dir);
  db.prepare('INSERT INTO documents (namespace, id, value) VALUES (?, ?, ?)').run(
    'edge-one',
    'alerts',
    JSON.stringify(rules),
  );
  db.close();
  return dir;
}
