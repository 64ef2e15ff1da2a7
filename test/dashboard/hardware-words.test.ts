// The hardware status in words (web/src/hardware-words.ts, web/src/device-words.ts): counters
// named with what to do, driver error codes explained, addresses as their datasheets and the
// kernel write them, thermocouple faults, the emulated plant rounded with units.
import t from 'tap';
import { errorWords, hexAddress, oneWireName, thermocoupleFaultWords } from '../../web/src/device-words.js';
import { counterWords, isErrorCounter, missingLines, plantRows } from '../../web/src/hardware-words.js';

t.test('counters in words, with what to do when they count errors', async (t) => {
  t.equal(counterWords('crcErrors').title, 'CRC errors');
  t.match(counterWords('crcErrors').help, /twisted pair/);
  t.equal(counterWords('presenceErrors').title, 'No answer');
  t.equal(counterWords('searches').help, null, 'a plain count needs no advice');
  t.same(counterWords('brandNewErrors'), { title: 'Brand new errors', help: 'see the last error.' });
  t.ok(isErrorCounter('shortErrors', 3));
  t.notOk(isErrorCounter('searches', 3));
});

t.test('addresses as the datasheet and the kernel write them', async (t) => {
  t.equal(hexAddress(96), '0x60');
  t.equal(hexAddress(0x20), '0x20');
  t.equal(oneWireName('2801b00000000066'), '28-00000000b001');
  t.equal(oneWireName('3b01f00000000033'), '3b-00000000f001');
  t.equal(oneWireName('not an address'), 'not an address');
});

t.test('driver errors and thermocouple faults in words', async (t) => {
  t.equal(
    errorWords('NACK: 0x44 does not answer'),
    'the chip does not answer at its address: check its wiring and power (0x44 does not answer)',
  );
  t.match(
    errorWords('FAULT: 0x60: thermocouple input out of range (open or shorted)'),
    /^thermocouple open or shorted/,
  );
  t.equal(errorWords('something else'), 'something else', 'a text without a known code stays');
  t.match(thermocoupleFaultWords('open circuit'), /^thermocouple open: it is not connected or a wire is broken/);
  t.match(thermocoupleFaultWords('short to GND'), /shorted to ground/);
  t.equal(thermocoupleFaultWords(''), null);
});

t.test('the emulated plant rounded, with units', async (t) => {
  t.same(
    plantRows({
      time: 28.207441065000015,
      beer: 19.002649533081385,
      air: 20.7326507324111,
      ambient: 22,
      heater: 1,
      cooler: 0.25,
      fermentationW: 4,
      heaterOn: true,
      coolerOn: true,
    }),
    [
      ['Beer', '19.0 °C'],
      ['Fridge air', '20.7 °C'],
      ['Room', '22.0 °C'],
      ['Heater', 'on'],
      ['Cooler', 'on (25 %)'],
      ['Fermentation heat', '4 W'],
      ['Simulated for', '28 s'],
    ],
  );
});

t.test('devices not read: the gone ones apart from those that answer with damaged replies', async (t) => {
  const label = (a: string) => (a === '2901d00000000011' ? 'DS2408 (Heater)' : a);
  t.same(missingLines(['2901d00000000011', '28b1000000000022'], ['2901d00000000011'], label), [
    'Not found on any bus (unplugged, or a loose wire): 28b1000000000022',
    'Answer but their replies fail their checks (CRC): a noisy bus, a long cable or a failing chip: DS2408 (Heater)',
  ]);
  t.same(
    missingLines(['28b1000000000022'], undefined, label),
    ['Not found on any bus (unplugged, or a loose wire): 28b1000000000022'],
    'a service that does not tell them apart: all not found',
  );
  t.same(missingLines([], [], label), []);
});
