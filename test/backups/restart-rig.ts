// The demo restarted on its own data dir, for test/backups/restart-reads.test.ts (after backup
// loads) and restart-changes.test.ts (after a rename and a write): the demo's blocks (PIDs,
// actuators with constraint timers, a mutex, IO arrays, sensors, discovered devices) with a running
// sequence of each store-mode kind and a running profile, run for ten minutes (the mutex's hold
// time), then restarted on the same data dir as often as a test asks. Each restart compares every
// block, read in the stored projection (what backups and restarts keep), before the restart with
// the restarted app before it updates anything and after its first update, and checks that the
// sequence Crash runs through it (past its SET_SETPOINT, not in ERROR: its line named the block in
// double quotes and stopped it, unseen by the comparison, which held the same error before and
// after). Only a Sequence's store mode changes a block at a restart, by its rule. The two files
// were one, which ran out of tap's 120 s beside two CPU burners. Not a test file itself.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { ROOT } from '../helpers/root.js';
import { simApp, type SimApp } from '../hardware/sim-app.js';

const seed = JSON.parse(readFileSync(path.join(ROOT, 'scripts/demo-blocks.json'), 'utf8'));
const link = (id: string) => ({ __objtype: 'Link', id });

type Stored = { id: string; type: string; data: any };

async function storedById(s: SimApp, restarted = (b: Stored) => b.data): Promise<Map<string, string>> {
  const res = await s.post('blocks/all/read/stored');
  return new Map((res.body as Stored[]).map((b) => [b.id, JSON.stringify(restarted(b))]));
}

/**
 * What a restart makes of a block by rule: a Sequence's store mode (stored as its number) starts
 * it at the first instruction with its time at 0 (3, 4, 5) and enables (1, 4) or disables (2, 5) it.
 */
function restarted(b: Stored): unknown {
  if (b.type !== 'Sequence') return b.data;
  const mode = b.data.storeMode as number;
  const d = structuredClone(b.data);
  if (mode >= 3) {
    d.activeInstruction = 0;
    d.elapsed.value = 0;
  }
  if (mode === 1 || mode === 4) d.enabled = true;
  if (mode === 2 || mode === 5) d.enabled = false;
  return d;
}

const diff = (a: Map<string, string>, b: Map<string, string>) =>
  [...new Set([...a.keys(), ...b.keys()])]
    .filter((id) => a.get(id) !== b.get(id))
    .map((id) => `${id}: ${a.get(id)?.slice(0, 300)} became ${b.get(id)?.slice(0, 300)}`);

export interface RestartRig {
  /** The app running now (a new one after each restart). */
  app(): SimApp;
  /** Stop and start again on the same data dir; every block reads the same, and `crash` runs. */
  restart(what: string, crash: string): Promise<void>;
  /** Two minutes on the app before the next change (the time a sequence stores only now and then). */
  runOn(): Promise<void>;
}

/** The demo with the sequences and the profile, created and run for ten minutes; closed when `t` ends. */
export async function restartRig(t: Test): Promise<RestartRig> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-reads-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let s = await simApp({ dataDir });
  t.teardown(() => s.close());
  t.equal((await s.post('blocks/backup/load', seed)).status, 200);
  await s.post('blocks/discover');
  const created = [
    {
      id: 'Crash',
      type: 'Sequence',
      data: {
        instructions: ["SET_SETPOINT target='Beer Setpoint', setting=20C", 'WAIT_DURATION duration=3d', 'WAIT'],
      },
    },
    {
      id: 'Crash From Start',
      type: 'Sequence',
      data: { storeMode: 'AT_FIRST_INSTRUCTION_RESTORE_ENABLED', instructions: ['WAIT_DURATION duration=3d', 'WAIT'] },
    },
    {
      id: 'Fermentation',
      type: 'SetpointProfile',
      data: {
        enabled: true,
        targetId: link('Beer Setpoint'),
        points: [
          { time: 0, temperature: { __objtype: 'Quantity', unit: 'degC', value: 19 } },
          { time: 3 * 86400, temperature: { __objtype: 'Quantity', unit: 'degC', value: 21 } },
        ],
      },
    },
  ];
  for (const b of created) t.equal((await s.post('blocks/create', b)).status, 201, `${b.id} created`);
  await s.run(10 * 60_000, 1000);
  /** Crash ran its SET_SETPOINT and waits on its WAIT_DURATION (paused once disabled), not stopped in ERROR. */
  const crashRuns = (id: string, what: string) => {
    const d = s.data(id);
    t.not(d.status, 'ERROR', `${what}: ${id} runs (${d.errorMessage})`);
    t.equal(d.activeInstruction, 1, `${what}: ${id} is past its SET_SETPOINT`);
  };
  crashRuns('Crash', 'created');

  return {
    app: () => s,
    async restart(what, crash) {
      const before = await storedById(s, restarted);
      const now = s.clock.now();
      await s.close();
      s = await simApp({ dataDir, start: now });
      t.same(diff(before, await storedById(s)), [], `${what}: the same at the restart`);
      await s.run(100, 100);
      t.same(diff(before, await storedById(s)), [], `${what}: the same after the first update`);
      crashRuns(crash, what);
    },
    runOn: () => s.run(2 * 60_000, 1000),
  };
}
