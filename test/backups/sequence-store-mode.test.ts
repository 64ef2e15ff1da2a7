// A backup load restores a Sequence as a restart does: its store mode decides where it resumes
// (AT_FIRST_INSTRUCTION: at the first instruction, its time in it reset to 0) and whether it is
// enabled. What the load made of it is what its record holds: a restart of the app on the same
// data dir reads the same sequence, and never the backup's position or time again.
import t from 'tap';
import Database from '../../src/store/sqlite.js';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { simApp } from '../hardware/sim-app.js';

const seconds = (v: number) => ({ __objtype: 'Quantity', unit: 'second', value: v, readonly: true });

/** A backup whose sequence was 90 min into the 2 h wait (instruction 1) when it was saved. */
const backup = (storeMode: string, own: boolean) => ({
  ...(own ? { version: '0.0.0-test', timestamp: '2026-01-01T00:00:00Z', store: [] } : {}),
  blocks: [
    {
      id: 'Fermentation',
      nid: 100,
      type: 'Sequence',
      data: {
        enabled: true,
        storeMode,
        instructions: ['WAIT_DURATION duration=1h', 'WAIT_DURATION duration=2h', 'WAIT'],
        activeInstruction: 1,
        elapsed: seconds(5400),
      },
    },
  ],
});

const view = (d: any) => ({ activeInstruction: d.activeInstruction, elapsed: d.elapsed.value, enabled: d.enabled });

for (const own of [true, false])
  for (const storeMode of ['AT_FIRST_INSTRUCTION_NEVER_ENABLED', 'AT_FIRST_INSTRUCTION_RESTORE_ENABLED'])
    t.test(`${own ? 'own' : 'Brewblox'} backup, ${storeMode}: the load's reset is stored`, async (t) => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-seqload-'));
      t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
      const s = await simApp({ dataDir });
      const loaded = await s.post('blocks/backup/load', backup(storeMode, own));
      t.equal(loaded.status, 200);
      const afterLoad = view(s.data('Fermentation'));
      t.same(afterLoad, { activeInstruction: 0, elapsed: 0, enabled: storeMode.endsWith('RESTORE_ENABLED') });
      await s.close();

      const db = new Database(path.join(dataDir, 'edgeblocks.db'), { readonly: true });
      const row = db.prepare('SELECT data FROM blocks WHERE nid = 100').get() as { data: string };
      db.close();
      const stored = JSON.parse(row.data);
      t.same(
        { activeInstruction: stored.activeInstruction, elapsed: stored.elapsed.value },
        { activeInstruction: 0, elapsed: 0 },
        'the record holds the reset, not the backup time',
      );

      const again = await simApp({ dataDir });
      t.teardown(() => again.close());
      t.same(view(again.data('Fermentation')), afterLoad, 'read at the restart, before any update');
      await again.run(1000, 100);
      t.same(view(again.data('Fermentation')).activeInstruction, 0, 'still at the first instruction');
      t.ok(again.data('Fermentation').elapsed.value <= 1, 'its time counts from 0');
    });
