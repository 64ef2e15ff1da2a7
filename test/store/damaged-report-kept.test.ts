// The report of a damaged database (src/store/salvage.ts) is told by a one-shot alert when the
// alerts start, late in a start. It was dropped from the database as soon as the store opened, so
// a start that failed after that (a port in use, a bad setting: systemd starts it again) lost it:
// the next start had nothing to tell, and nobody learned that blocks were lost.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('a start that fails after the recovery does not lose its report', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-damaged-report-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startApp({}, { dataDir, listen: false });
  t.equal((await first.post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: {} })).status, 201);
  await first.close();
  const fd = openSync(path.join(dataDir, 'edgeblocks.db'), 'r+');
  writeSync(fd, Buffer.alloc(16, 0xa5), 0, 16, 0);
  closeSync(fd);

  // The HTTP port is taken: this start recovers the database, then fails.
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  const port = String((taken.address() as AddressInfo).port);
  await t.rejects(startApp({ port }, { dataDir }), 'the start fails');
  await new Promise<void>((r) => taken.close(() => r()));

  const again = await startApp({}, { dataDir });
  t.teardown(() => again.close());
  const status = (await fetch(`${again.base}/system/status`).then((r) => r.json())) as any;
  t.match(status.damagedDatabase, { reason: /not a database/ }, 'status still names the damage');
  let kinds: string[] = [];
  for (let i = 0; i < 50 && !kinds.includes('database-damaged'); i++) {
    const body = (await fetch(`${again.base}/alerts`).then((r) => r.json())) as { active: { kind: string }[] };
    kinds = body.active.map((a) => a.kind);
    await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(kinds.includes('database-damaged'), `the 'Database damaged' alert is raised (${kinds.join(', ')})`);

  await again.close();
  const later = await startApp({}, { dataDir });
  t.teardown(() => later.close());
  const laterStatus = (await fetch(`${later.base}/system/status`).then((r) => r.json())) as any;
  t.equal(laterStatus.damagedDatabase, null, 'once told, a later start does not tell it again');
});
