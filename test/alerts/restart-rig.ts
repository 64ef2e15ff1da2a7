// The app stopped and started again over one data dir (real SQLite), each run on a manual clock
// whose wall clock goes on through the stop where a test says, for the alert restart tests. Not a test file itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import Database from '../../src/store/sqlite.js';
import { simApp, type SimApp } from '../hardware/sim-app.js';

export const SECOND = 1000;
export const WALL = Date.UTC(2026, 5, 1, 12);

/** An app on the data dir, its alerts started; its wall clock at `wall` when it starts. */
export async function open(dataDir: string, wall: number, config: Record<string, string> = {}): Promise<SimApp> {
  const s = await simApp({ dataDir, clock: new ManualClock(1000, wall - 1000), config });
  s.app.alerts.start();
  return s;
}

export const put = async (s: SimApp, route: string, body: unknown) =>
  (
    await s.app.http.inject({
      method: 'PUT',
      url: `/${s.app.config.serviceId}/${route}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    })
  ).statusCode;

export async function active(s: SimApp, kind: string): Promise<any[]> {
  return (await s.get('alerts')).body.active.filter((a: any) => a.kind === kind);
}

export function dataDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-restart-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The pending record as stored now (the tracker stores it every 10 s while there is one). */
export function pendingStored(s: SimApp): any[] {
  const db = new Database(path.join(s.dataDir, 'edgeblocks.db'), { readonly: true });
  try {
    const row = db.prepare("SELECT value FROM settings WHERE key = 'alert-pending'").get() as
      | { value: string }
      | undefined;
    return row ? JSON.parse(row.value).pending : [];
  } finally {
    db.close();
  }
}
