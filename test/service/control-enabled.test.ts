// The control-enabled setting is read from the database once: the alerts and the status read it
// every few seconds, and a query each time showed in the idle profile. set() writes it through.
import t from 'tap';
import pino from 'pino';
import { ControlEnabled, type SettingsStore } from '../../src/service/control-enabled.js';
import type { ControlLoop } from '../../src/runtime/loop.js';
import type { BlockRuntime } from '../../src/runtime/runtime.js';

function store(initial?: string) {
  const values = new Map<string, string>(initial === undefined ? [] : [['control_enabled', initial]]);
  const counts = { reads: 0, writes: 0 };
  const s: SettingsStore = {
    readSetting: (k) => (counts.reads++, values.get(k)),
    writeSetting: (k, v) => (counts.writes++, void values.set(k, v)),
  };
  return { s, counts, values };
}

const runtime = () => ({ paused: false }) as unknown as BlockRuntime;
const loop = () => ({ start: () => undefined, stop: async () => undefined }) as unknown as ControlLoop;
const outputs = { safeState: async () => undefined, resume: () => undefined };

t.test('read once, then from memory; set writes through and a new instance reads the stored value', async (t) => {
  const { s, counts, values } = store();
  let safe = 0;
  let resumed = 0;
  const control = new ControlEnabled(
    s,
    runtime(),
    loop(),
    { safeState: async () => void safe++, resume: () => void resumed++ },
    pino({ level: 'silent' }),
  );
  for (let i = 0; i < 100; i++) t.equal(control.enabled, true);
  t.equal(counts.reads, 1, 'one database read for 100 reads');
  t.equal(await control.set(false), false);
  t.equal(control.enabled, false);
  t.equal(values.get('control_enabled'), 'false', 'written to the store');
  t.equal(safe, 1, 'outputs driven safe');
  t.equal(await control.set(true), true);
  t.equal(resumed, 1, 'and follow their blocks again once enabled');
  t.equal(await control.set(false), false);
  t.equal(
    new ControlEnabled(s, runtime(), loop(), outputs, pino({ level: 'silent' })).enabled,
    false,
    'a restart reads it back',
  );
});

t.test('a failed write leaves the setting as it was', async (t) => {
  const { s } = store('true');
  t.capture(s, 'writeSetting', () => {
    throw Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' });
  });
  const control = new ControlEnabled(s, runtime(), loop(), outputs, pino({ level: 'silent' }));
  await t.rejects(control.set(false), /disk full/);
  t.equal(control.enabled, true, 'still enabled: nothing was stored');
});
