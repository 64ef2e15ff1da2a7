// MCP23017, PCF8574 and PCA9685 end to end: blocks on the emulated I2C chips through the real
// drivers, the hub's bus queue and REST, including NACKs, a stuck bus and power-on resets.
import t from 'tap';
import type { SimMcp23017 } from '../../drivers/sim/mcp23017-sim.js';
import type { SimPca9685 } from '../../drivers/sim/pca9685-sim.js';
import type { SimPcf8574 } from '../../drivers/sim/pcf8574-sim.js';
import { heaterOnRelayBoard, q, simApp, type SimApp } from './sim-app.js';

const link = (id: string) => ({ __objtype: 'Link', id });

const BOARDS = {
  plant: { ambient: 18, initial: { beer: 18, air: 18 } },
  i2cIo: [
    { name: 'relays', type: 'MCP23017', address: '0x20', activeLow: true, outputs: { '1': 'heater' } },
    { name: 'buttons', type: 'PCF8574', address: '0x38', inputs: { '3': 0 } },
    { name: 'pwm', type: 'PCA9685', address: '0x40' },
  ],
};

function chip<T>(s: SimApp, name: string): T {
  return s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === name)!.chip as T;
}

async function status(s: SimApp): Promise<any> {
  return (await s.get('system/status')).body.hardware.i2c;
}

t.test(
  'the demo hardware has a relay board on an MCP23017 that blocks/discover finds, with bus and address in the status',
  async (t) => {
    const s = await simApp();
    t.teardown(() => s.close());
    const found = await s.post('blocks/discover');
    t.equal(found.status, 200);
    const board = found.body.find((b: any) => b.type === 'MCP23017');
    t.ok(board, 'an MCP23017 block is proposed');
    t.equal(board.id, 'MCP23017 0x20');
    t.equal(board.data.bus, 'sim');
    t.equal(board.data.address, 32);
    t.same(
      (await s.post('blocks/discover')).body.filter((b: any) => b.type === 'MCP23017'),
      [],
      'not proposed twice',
    );
    await s.run(1500);
    t.equal(s.data('MCP23017 0x20').connected, true, 'discover created the block, and it answers');
    const st = await status(s);
    // One I2C section: the demo's sensors and its relay board, all on the one emulated bus and its one queue.
    t.match(st.found, [
      { bus: 'sim', address: '0x60', kind: 'MCP9600', status: 'found' },
      { bus: 'sim', address: '0x76', kind: 'BME280', status: 'found' },
      { bus: 'sim', address: '0x20', kind: 'MCP23017', status: 'found' },
    ]);
    t.equal(st.buses.length, 1, 'one queue for the bus');
    t.match(st.buses[0], { name: 'sim', dropped: 0 });
    t.ok(st.buses[0].wireBits > 0 && st.buses[0].wireMs > 0);
    t.same(st.missing, []);

    const created = await s.post('blocks/create', {
      id: 'Ghost board',
      type: 'MCP23017',
      data: { bus: 'sim', address: 0x21 },
    });
    t.equal(created.status, 201);
    await s.run(1500);
    t.equal(s.data('Ghost board').connected, false);
    t.match(
      (await status(s)).missing,
      [{ bus: 'sim', address: '0x21', kind: 'MCP23017' }],
      'a configured chip that does not answer is missing',
    );
    const bad = await s.post('blocks/create', { id: 'Wrong', type: 'MCP23017', data: { bus: 'sim', address: 0x40 } });
    t.equal(bad.status, 422, 'an address the chip cannot have is refused');
    t.match(JSON.stringify(bad.body), /0x40 \(64\) is not an address of a MCP23017 \(0x20-0x27\)/);
  },
);

t.test(
  'a relay on an active-low MCP23017: switched, written only on change, read back; NACKs, a stuck bus and a power-on reset are seen and healed',
  async (t) => {
    const s = await simApp({ sim: BOARDS });
    t.teardown(() => s.close());
    const mcp = chip<SimMcp23017>(s, 'relays');
    t.equal(
      (
        await s.post('blocks/create', {
          id: 'Relays',
          type: 'MCP23017',
          data: { bus: 'sim', address: 0x20, activeLow: true },
        })
      ).status,
      201,
    );
    t.equal(
      (
        await s.post('blocks/create', {
          id: 'Heater',
          type: 'DigitalActuator',
          data: { hwDevice: link('Relays'), channel: 1, storedState: 'STATE_INACTIVE' },
        })
      ).status,
      201,
    );
    await s.run(1000);
    t.equal(s.data('Relays').connected, true);
    t.equal(s.data('Heater').state, 'STATE_INACTIVE');
    t.equal(mcp.iodir & 1, 0, 'channel 1 is an output');
    t.equal(mcp.pins() & 1, 1, 'inactive on an active-low board: pin high');
    t.equal(mcp.iodir & 0xfffe, 0xfffe, 'unused channels stay inputs');
    t.equal(s.app.hardware.sim!.plantStatus().heaterOn, false);

    await s.post('blocks/patch', { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_ACTIVE' } });
    await s.run(1500);
    t.equal(mcp.pins() & 1, 0, 'active: pin low');
    t.equal(s.data('Heater').state, 'STATE_ACTIVE', 'state read back from the pin');
    t.equal(s.app.hardware.sim!.plantStatus().heaterOn, true, 'the plant heater is on');

    const writesBefore = (await status(s)).devices.find((d: any) => d.address === '0x20').writes;
    await s.run(3000);
    t.equal(
      (await status(s)).devices.find((d: any) => d.address === '0x20').writes,
      writesBefore,
      'no writes while nothing changes',
    );

    // The chip stops answering: disconnected, the actuator's state unknown; back: connected.
    mcp.plugged = false;
    await s.run(1500);
    t.equal(s.data('Relays').connected, false);
    t.equal(s.data('Heater').state, null, 'the actuator reports it cannot read its channel');
    t.match((await status(s)).missing, [{ address: '0x20', lastError: /does not acknowledge/ }]);
    mcp.plugged = true;
    await s.run(1500);
    t.equal(s.data('Relays').connected, true);
    t.equal(s.data('Heater').state, 'STATE_ACTIVE');

    // A single NACK: one failed poll, then normal.
    const failures = (await status(s)).devices[0].failures;
    mcp.faults.nack = 1;
    await s.run(1500);
    t.equal((await status(s)).devices[0].failures, failures + 1);
    t.equal(s.data('Relays').connected, true);

    // Power-on reset: every pin an input again (relay off); the hub sees it and writes again.
    mcp.powerOnReset();
    t.equal(mcp.pins() & 1, 1, 'after the reset the relay is off');
    await s.run(1500);
    t.equal(mcp.pins() & 1, 0, 'the relay is on again');
    t.ok((await status(s)).devices[0].resets >= 1, 'the reset is counted');

    // A stuck bus: every chip on it disconnected; released: back.
    s.app.hardware.sim!.i2c!.faults.stuck = true;
    await s.run(1500);
    t.equal(s.data('Relays').connected, false);
    s.app.hardware.sim!.i2c!.faults.stuck = false;
    await s.run(1500);
    t.equal(s.data('Relays').connected, true);
    t.equal(mcp.pins() & 1, 0);

    // Deleting the board block's user switches the output off; deleting the board lets it go (power-on state).
    await s.post('blocks/delete', { id: 'Heater' });
    await s.run(1500);
    t.equal(mcp.pins() & 1, 1, 'the deleted actuator left its relay off');
    await s.post('blocks/delete', { id: 'Relays' });
    await s.run(1500);
    t.equal(mcp.iodir, 0xffff, 'a released chip is back in its power-on state');
  },
);

t.test(
  'PCF8574: an input channel read by DigitalInput, an output switched; PCA9685: FastPwm at the chip frequency, re-set after a power-on reset',
  async (t) => {
    const s = await simApp({ sim: BOARDS });
    t.teardown(() => s.close());
    const pcf = chip<SimPcf8574>(s, 'buttons');
    const pca = chip<SimPca9685>(s, 'pwm');
    await s.post('blocks/create', { id: 'Buttons', type: 'PCF8574', data: { bus: 'sim', address: 0x38 } });
    await s.post('blocks/create', {
      id: 'Button',
      type: 'DigitalInput',
      data: { hwDevice: link('Buttons'), channel: 3 },
    });
    await s.post('blocks/create', {
      id: 'Lamp',
      type: 'DigitalActuator',
      data: { hwDevice: link('Buttons'), channel: 5, storedState: 'STATE_ACTIVE' },
    });
    await s.post('blocks/create', { id: 'PWM', type: 'PCA9685', data: { bus: 'sim', address: 0x40, frequency: 200 } });
    await s.post('blocks/create', {
      id: 'Fan',
      type: 'FastPwm',
      data: { hwDevice: link('PWM'), channel: 4, storedSetting: 40, frequency: 'PWM_FREQ_100HZ' },
    });
    await s.run(2000);
    t.equal(s.data('Buttons').connected, true);
    t.equal(s.data('Button').state, 'STATE_ACTIVE', 'a pin pulled low reads active on an active-low PCF8574');
    t.equal(pcf.pins() & 0x10, 0, 'the lamp output pulls its pin low');
    t.equal(pcf.port & 0xef, 0xef, 'every other pin stays at the weak pull-up');
    pcf.external |= 0x04;
    await s.run(1500);
    t.equal(s.data('Button').state, 'STATE_INACTIVE', 'released');

    t.equal(s.data('PWM').connected, true);
    t.ok(Math.abs(pca.frequency - 200) < 5, `chip runs at ${pca.frequency.toFixed(1)} Hz`);
    t.ok(Math.abs(pca.duty(4) - 40) < 0.05, `channel 4 duty ${pca.duty(4)}`);
    t.ok(Math.abs(q(s.data('Fan').value)! - 40) < 0.05, 'FastPwm reads back the duty');
    pca.powerOnReset();
    t.equal(pca.duty(4), 0, 'a reset chip sleeps with every channel off');
    await s.run(1500);
    t.ok(Math.abs(pca.duty(4) - 40) < 0.05, 'configured and driven again after the reset');
    t.ok(Math.abs(pca.frequency - 200) < 5);
    pca.plugged = false;
    await s.run(1500);
    t.equal(s.data('PWM').connected, false);
    t.equal(s.data('Fan').value, null, 'no duty while the chip does not answer');
  },
);

t.test('a clean stop puts every chip in its power-on state', async (t) => {
  const s = await simApp({ sim: BOARDS });
  const mcp = chip<SimMcp23017>(s, 'relays');
  const pca = chip<SimPca9685>(s, 'pwm');
  await heaterOnRelayBoard(s);
  await s.post('blocks/create', { id: 'PWM', type: 'PCA9685', data: { bus: 'sim', address: 0x40 } });
  await s.post('blocks/create', {
    id: 'Fan',
    type: 'FastPwm',
    data: { hwDevice: link('PWM'), channel: 1, storedSetting: 70 },
  });
  await s.run(1000);
  t.equal(mcp.pins() & 1, 0, 'relay on');
  t.ok(pca.duty(1) > 60);
  const driven = await s.app.hardware.safeState();
  t.same(
    driven.i2c.map((c) => `${c.kind}@${c.address}`).sort(),
    ['MCP23017@32', 'PCA9685@64', 'PCF8574@56'],
    'the found PCF8574 too',
  );
  t.equal(mcp.iodir, 0xffff, 'all MCP23017 pins inputs: the active-low relay is off');
  t.equal(mcp.pins() & 1, 1);
  t.equal(pca.duty(1), 0);
  await s.run(1500);
  t.equal(mcp.pins() & 1, 1, 'and they stay safe while control is off: the polls do not write them back');
  t.equal(pca.duty(1), 0);
  // Control enabled again (ControlEnabled calls resume): the chips follow their blocks once more.
  s.app.hardware.resume();
  await s.run(1500);
  t.equal(mcp.pins() & 1, 0, 'resumed: the relay is on again');
  t.ok(pca.duty(1) > 60, 'and the fan back at its duty');
  await s.close();
});
