import t from 'tap';
import {
  PowerOnResetError,
  decodeTemperature,
  temperatureFromScratchpad,
  TH_MARKERS,
} from '../../drivers/onewire/ds18b20.js';
import { crc8 } from '../../drivers/onewire/crc.js';
import { OneWireError } from '../../drivers/onewire/types.js';
import { SimDs18b20 } from '../../drivers/sim/onewire-wire.js';
import { ds2482Rig, rejects } from './onewire-fixtures.js';

function code(e: unknown): string {
  return e instanceof OneWireError ? e.code : `not a OneWireError: ${String(e)}`;
}

function sp(bytes: number[]): number[] {
  return [...bytes, crc8(bytes)];
}

t.test('12-bit decoding of datasheet values', async (t) => {
  const cases: Array<[number, number]> = [
    [0x07d0, 125],
    [0x0550, 85],
    [0x0191, 25.0625],
    [0x00a2, 10.125],
    [0x0008, 0.5],
    [0x0000, 0],
    [0xfff8, -0.5],
    [0xff5e, -10.125],
    [0xfe6f, -25.0625],
    [0xfc90, -55],
  ];
  for (const [raw, degC] of cases) {
    t.equal(decodeTemperature([raw & 0xff, raw >> 8, 0, 0, 0x7f, 0xff, 0x10, 0x10]), degC, `0x${raw.toString(16)}`);
  }
  t.equal(decodeTemperature([0x97, 0x01, 0, 0, 0x1f, 0xff, 0x10, 0x10]), 25, '9-bit masks the 3 undefined low bits');
});

t.test('validation rules on scratchpads', async (t) => {
  const por = sp([0x50, 0x05, 0x4b, 0x46, 0x7f, 0xff, 0x0c, 0x10]);
  t.throws(
    () => temperatureFromScratchpad(por, TH_MARKERS[0]),
    PowerOnResetError,
    'POR signature rejected even with marker',
  );
  const real85 = sp([0x50, 0x05, TH_MARKERS[0], 0x46, 0x7f, 0xff, 0x10, 0x10]);
  t.equal(temperatureFromScratchpad(real85, TH_MARKERS[0]), 85, 'a real 85.000 with the marker is accepted');
  t.throws(() => temperatureFromScratchpad(real85, null), PowerOnResetError, 'an unconfigured 85.000 is not trusted');
  const lostMarker = sp([0x91, 0x01, 0x4b, 0x46, 0x7f, 0xff, 0x0f, 0x10]);
  t.throws(() => temperatureFromScratchpad(lostMarker, TH_MARKERS[0]), PowerOnResetError, 'TH reloaded from EEPROM');
  t.equal(temperatureFromScratchpad(lostMarker, null), 25.0625, 'same bytes before configuration are fine');
  const lowPower = sp([0xff, 0x07, TH_MARKERS[0], 0x46, 0x7f, 0xff, 0x0c, 0x10]);
  t.throws(() => temperatureFromScratchpad(lowPower, TH_MARKERS[0]), PowerOnResetError, '0x07FF low-power value');
});

t.test('convert, wait 750 ms on the injected clock, read', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const a = segment.attach(new SimDs18b20({ serial: 1n, temperature: 21.5 }));
  const b = segment.attach(new SimDs18b20({ serial: 2n, temperature: -10.125 }));
  await bus.convertAll();
  clock.advance(749);
  t.ok(a.converting, 'still converting at 749 ms');
  const early = await rejects(bus.readTemperature(a.address));
  t.type(early, PowerOnResetError, 'before the first conversion ends the power-on 85 is rejected');
  clock.advance(1);
  t.notOk(a.converting, 'done at 750 ms');
  t.equal(await bus.readTemperature(a.address), 21.5);
  t.equal(await bus.readTemperature(b.address), -10.125);
  a.setTemperature(22.25);
  t.equal(await bus.readTemperature(a.address), 21.5, 'value only changes with a conversion');
  await bus.convertAll();
  clock.advance(750);
  t.equal(await bus.readTemperature(a.address), 22.25);
  t.equal(a.scratchpad()[2], TH_MARKERS[0], 'TH marker written to RAM');
  t.equal(a.eeprom.th, 75, 'EEPROM untouched');
  t.equal(a.scratchpad()[4], 0x7f, '12-bit configured');
});

t.test('CRC failures are retried up to 3 times', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const s = segment.attach(new SimDs18b20({ serial: 7n, temperature: 18 }));
  await bus.convertAll();
  clock.advance(800);
  await bus.readTemperature(s.address);
  s.corruptNextReads(3);
  const before = bus.stats.crcRetries;
  t.equal(await bus.readTemperature(s.address), 18, 'three bad frames then a good one');
  t.equal(bus.stats.crcRetries - before, 3);
  s.corruptNextReads(4);
  t.equal(code(await rejects(bus.readTemperature(s.address))), 'CRC', 'four bad frames: CRC error');
  t.equal(await bus.readTemperature(s.address), 18, 'fine again afterwards');
  s.corruptAlways();
  t.equal(code(await rejects(bus.readTemperature(s.address))), 'CRC', 'permanent corruption');
  s.corruptAlways(false);
  t.equal(await bus.readTemperature(s.address), 18);
});

t.test('all-zero scratchpad (CRC 0 passes) is rejected', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const s = segment.attach(new SimDs18b20({ serial: 9n, temperature: 18 }));
  await bus.convertAll();
  clock.advance(800);
  await bus.readTemperature(s.address);
  s.holdDataLow();
  const e = await rejects(bus.readTemperature(s.address));
  t.equal(code(e), 'INVALID_DATA');
  t.match(String(e), /all-zero/);
  s.holdDataLow(false);
  t.equal(await bus.readTemperature(s.address), 18);
});

t.test('unplug gives NO_PRESENCE; replug shows 85 degC which is rejected until a fresh conversion', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const s = segment.attach(new SimDs18b20({ serial: 11n, temperature: 19 }));
  const other = segment.attach(new SimDs18b20({ serial: 12n, temperature: 30 }));
  await bus.convertAll();
  clock.advance(800);
  t.equal(await bus.readTemperature(s.address), 19);
  t.equal(await bus.readTemperature(other.address), 30);

  s.unplug();
  t.equal(
    code(await rejects(bus.readTemperature(s.address))),
    'NO_PRESENCE',
    'other devices answer presence, the match finds nobody',
  );
  other.unplug();
  t.equal(code(await rejects(bus.readTemperature(s.address))), 'NO_PRESENCE', 'empty bus: no presence pulse');

  s.plug();
  other.plug();
  const e = await rejects(bus.readTemperature(s.address));
  t.type(e, PowerOnResetError, 'power-on scratchpad (85 degC) rejected');
  t.equal(s.scratchpad()[0], 0x50, 'the model really holds 85 degC');
  await bus.convertAll();
  clock.advance(800);
  t.equal(await bus.readTemperature(s.address), 19, 'fresh conversion accepted');

  // A power glitch after a conversion already happened: the TH marker catches it even though
  // the temperature register is a real reading.
  s.powerOnReset();
  await bus.convertAll();
  clock.advance(800);
  t.type(await rejects(bus.readTemperature(s.address)), PowerOnResetError, 'lost TH marker rejected');
  await bus.convertAll();
  clock.advance(800);
  t.equal(await bus.readTemperature(s.address), 19, 'reconfigured and valid again');
  t.ok(bus.stats.powerOnResets >= 2);
});

t.test('a genuine 85 degC reading is accepted once configured', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const s = segment.attach(new SimDs18b20({ serial: 13n, temperature: 20 }));
  await bus.convertAll();
  clock.advance(800);
  t.equal(await bus.readTemperature(s.address), 20);
  s.setTemperature(85);
  await bus.convertAll();
  clock.advance(800);
  t.equal(await bus.readTemperature(s.address), 85);
});

t.test('bus short is reported as SHORT and clears', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const s = segment.attach(new SimDs18b20({ serial: 14n, temperature: 20 }));
  segment.setShort(true);
  t.equal(code(await rejects(bus.convertAll())), 'SHORT');
  t.equal(code(await rejects(bus.readTemperature(s.address))), 'SHORT');
  t.equal(code(await rejects(bus.search())), 'SHORT');
  segment.setShort(false);
  await bus.convertAll();
  clock.advance(800);
  t.equal(await bus.readTemperature(s.address), 20);
  t.same(await bus.search(), [s.address]);
});
