// Only WAIT_DURATION reads `elapsed`, so only it stores it every minute: a sequence parked on a
// WAIT (until the user skips it) or on a temperature alarm sits there for weeks, and is not
// written to the SD card 1440 times a day.
import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { setup } from './setup.js';

const DAY = 24 * 3600_000;

for (const wait of ['WAIT', 'WAIT_TEMP_ABOVE target=sensor, value=90C']) {
  t.test(`a sequence parked on ${wait.split(' ')[0]} for a day`, async (t) => {
    const persistence = new MemoryPersistence();
    const su = setup({ persistence });
    su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
    su.create('seq', 'Sequence', { instructions: [wait] });
    await su.run(120_000, 1000);
    const before = persistence.writes;
    await su.run(DAY, 10_000);
    const writes = persistence.writes - before;
    t.comment(`${writes} block writes in a day`);
    t.ok(writes <= 10, `a wait that never reads elapsed is not written every minute (${writes} writes)`);
  });
}
