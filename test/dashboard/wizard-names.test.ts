// Issue 50.6: the wizard's default prefix is one whose names are all free, and GPIO channels are
// offered by the names the configuration gives their lines (web/src/wizard.ts).
import t from 'tap';
import { channelLabel, freePrefix, fridgeNames } from '../../web/src/wizard.js';

t.test('the default prefix is the first free one', async (t) => {
  t.equal(
    freePrefix(() => false),
    'Ferment',
    'nothing in use: Ferment',
  );
  const afterStep5 = new Set(['Beer Setpoint', 'Room Sensor', 'Ferment Profile']);
  t.equal(
    freePrefix((n) => afterStep5.has(n)),
    'Ferment 2',
    "after first-fermentation step 5's Ferment Profile",
  );
  const twice = new Set([...Object.values(fridgeNames('Ferment')), ...Object.values(fridgeNames('Ferment 2'))]);
  t.equal(
    freePrefix((n) => twice.has(n)),
    'Ferment 3',
    'after two wizard runs',
  );
  const one = new Set(['Ferment 2 Heat PID', 'Ferment Mutex']);
  t.equal(
    freePrefix((n) => one.has(n)),
    'Ferment 3',
    'one name of a prefix in use is enough to skip it',
  );
});

t.test('channels by their configured names', async (t) => {
  t.equal(channelLabel({ blockId: 'GpioPins', channel: 1, claimedBy: null, name: 'fan' }), 'fan (GpioPins channel 1)');
  t.equal(
    channelLabel({ blockId: 'DS2408 00000000d001', channel: 2, claimedBy: 'Cooler' }),
    'DS2408 00000000d001 channel 2 (now used by Cooler)',
    'a channel without a configured name as before',
  );
});
