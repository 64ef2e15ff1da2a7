import t from 'tap';
import { SimGpioBackend } from '../../drivers/gpio/sim-backend.js';

t.test('activeLow output: opened at its safe (inactive) level, which is physical high', async (t) => {
  const gpio = new SimGpioBackend();
  const relay = await gpio.open({ name: 'heater', line: 17, direction: 'out', activeLow: true });
  t.equal(gpio.physical(17), 1, 'inactive relay = pin high');
  t.equal(await relay.read(), false);
  await relay.write(true);
  t.equal(gpio.physical(17), 0, 'active = pin low');
  t.equal(await relay.read(), true);
  t.equal(gpio.isActive('heater'), true);
  t.equal(gpio.isActive(17), true);
  await relay.write(false);
  t.equal(gpio.physical(17), 1);
  t.equal(gpio.isActive('heater'), false);
});

t.test('activeHigh output and safeState true', async (t) => {
  const gpio = new SimGpioBackend({ initial: { 22: 1 } });
  const fan = await gpio.open({ name: 'fan', line: 22, direction: 'out' });
  t.equal(gpio.physical(22), 0, 'open drives the inactive level even if the pin was high');
  await fan.write(true);
  t.equal(gpio.physical(22), 1);
  const pump = await gpio.open({ name: 'pump', line: 23, direction: 'out', activeLow: true, safeState: true });
  t.equal(gpio.physical(23), 0, 'safe = active, so an active-low pin goes low');
  t.equal(await pump.read(), true);
});

t.test('inputs: levels set from outside, activeLow honoured, cannot be written', async (t) => {
  const gpio = new SimGpioBackend();
  const door = await gpio.open({ name: 'door', line: 5, direction: 'in', activeLow: true });
  gpio.setInput(5, 1);
  t.equal(await door.read(), false);
  gpio.setInput(5, 0);
  t.equal(await door.read(), true);
  await t.rejects(door.write(true), /is an input/);
  const heater = await gpio.open({ name: 'heater', line: 6, direction: 'out' });
  t.throws(() => gpio.setInput(6, 1), /driven as an output by "heater"/);
  t.equal(await heater.read(), false);
});

t.test('close keeps the level, frees the line; faults and range errors', async (t) => {
  const gpio = new SimGpioBackend({ ngpio: 28 });
  const a = await gpio.open({ name: 'a', line: 3, direction: 'out', activeLow: true });
  await t.rejects(gpio.open({ name: 'b', line: 3, direction: 'in' }), /in use by "a"/);
  await a.write(true);
  await a.close();
  t.equal(gpio.physical(3), 0, 'level kept after close, like sysfs');
  t.equal(gpio.state(3).open, false);
  t.equal(await a.read(), null);
  await t.rejects(a.write(false), /closed/);
  const b = await gpio.open({ name: 'b', line: 3, direction: 'out', activeLow: true });
  t.equal(gpio.physical(3), 1, 're-open drives the safe level again');
  gpio.setFault(3, true);
  t.equal(await b.read(), null);
  await t.rejects(b.write(true), /EIO/);
  await t.rejects(gpio.open({ name: 'x', line: 28, direction: 'out' }), /outside the emulated chip \(0\.\.27\)/);
  t.throws(() => gpio.isActive('nobody'), /no emulated GPIO line named "nobody"/);
  await gpio.close();
  t.equal(gpio.state(3).open, false);
});
