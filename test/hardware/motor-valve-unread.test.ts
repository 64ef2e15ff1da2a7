// A restart after a kill -9 that left a valve's motor driving (the DS2408 kept its latches), on a
// valve board that answers writes but whose reads keep failing (every frame it sends garbled).
// The valve does not drive before its end switches are read: the motor is stopped at once, not
// left running as the crash left it. Not for ever: after the bound a DigitalActuator waits
// (FIRST_READ_WAIT_MS) it drives toward what is stored, as the direction it held were closing
// since then, and the valve's own end stop halts it; its state stays unknown. On the emulated
// DS2408 valve board, real drivers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { FIRST_READ_WAIT_MS } from '../../src/blocks/shared/digital-constraints.js';
import { simApp } from './sim-app.js';
import { leftOnSim } from './relay-boards.js';

const BOARD = 'DS2408 0000000000d2';

const sim = (leftOn: number[]) =>
  leftOnSim(leftOn, { name: 'valves', address: '29-0000000000d2', valves: { '1': { travelSeconds: 6 } } });

/**
 * Valve B (start channel 1) stored `stored`, restarted with the crash's latch `leftOn` (3: the
 * closing drive, 4: the opening one) at `position`, its reads failing: the valve's position
 * and motor direction sampled every 100 ms for 40 s.
 */
async function restartUnread(t: Test, stored: string, leftOn: number, position: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-valve-unread-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await simApp({ sim: sim([]), dataDir });
  await first.post('blocks/discover');
  await first.run(2000);
  await first.post('blocks/patch', { id: BOARD, type: 'DS2408', data: { connectMode: 'CONNECT_VALVE' } });
  const res = await first.post('blocks/create', {
    id: 'Valve B',
    type: 'MotorValve',
    data: { 'hwDevice<>': BOARD, channel: 1, storedState: stored },
  });
  t.equal(res.status, 201);
  await first.run(2000);
  await first.close();

  const s = await simApp({ sim: sim([leftOn]), dataDir });
  t.teardown(() => s.close());
  s.app.hardware.sim!.injectFault('valves', 'crc', Number.POSITIVE_INFINITY);
  const model = s.app.hardware.sim!.valves().find((v) => v.valve.start === 1)!;
  model.valve.position = position;
  const samples: Array<{ at: number; position: number; direction: number }> = [];
  for (let at = 100; at <= 40_000; at += 100) {
    await s.run(100);
    samples.push({
      at,
      position: model.valve.position,
      direction: model.valve.direction(model.device.activeOutputs()),
    });
  }
  t.equal(s.data(BOARD).connected, false, 'the board never read');
  t.equal(s.data('Valve B').valveState, null, 'the valve state stays unknown');
  t.equal(s.data('Valve B').state, null);
  return samples;
}

t.test('a valve stored closed, a crash left it opening, reads failing: stopped, then closed', async (t) => {
  const samples = await restartUnread(t, 'STATE_INACTIVE', 4, 0.2);
  const waiting = samples.filter((x) => x.at >= 1000 && x.at < FIRST_READ_WAIT_MS);
  t.ok(
    waiting.every((x) => x.direction === 0),
    'the motor is stopped while the end switches are not read',
  );
  t.ok(samples[samples.length - 1]!.position < 0.3, 'it was not left opening');
  t.ok(
    samples.some((x) => x.direction < 0),
    'after the bound it drives closed, as stored',
  );
  t.equal(samples[samples.length - 1]!.position, 0, 'and is closed');
});

t.test('a valve stored open, a crash left it closing, reads failing: stopped, then opened', async (t) => {
  const samples = await restartUnread(t, 'STATE_ACTIVE', 3, 0.8);
  const waiting = samples.filter((x) => x.at >= 1000 && x.at < FIRST_READ_WAIT_MS);
  t.ok(
    waiting.every((x) => x.direction === 0),
    'the motor is stopped while the end switches are not read',
  );
  t.ok(
    samples.every((x) => x.at < 1000 || x.direction >= 0),
    'it was not left closing',
  );
  t.equal(samples[samples.length - 1]!.position, 1, 'after the bound it drives open, as stored: open');
});
