// Soft start on DigitalActuator and FastPwm (MockPins emulate PWM channels), FastPwm as an
// analog actuator with constraints, and the 0 s fallback on channels that cannot ramp.
import t from 'tap';
import { defineBlock, type IoArray } from '../../src/runtime/types.js';
import { ChannelCapability } from '../../src/blocks/shared/enums.js';
import { ioChannelsField, makeChannels } from '../../src/blocks/shared/fields.js';
import { link, setup } from './setup.js';
import { at } from '../helpers/json.js';

/** An IoArray without PWM, like a DS2408 or a relay board. */
const RelayPins = defineBlock<{ channels: typeof ioChannelsField }, { pins: boolean[]; io: IoArray }>({
  type: 'RelayPins',
  role: 'io',
  fields: { channels: ioChannelsField },
  implements: ['IoArrayInterface'],
  init(block) {
    block.data.channels = makeChannels(2, ChannelCapability.DIGITAL_OUTPUT);
    const pins = [false, false];
    return { pins, io: { channelCount: 2, read: (c) => pins[c - 1] ?? null, write: (c, a) => void (pins[c - 1] = a) } };
  },
  io: (b) => b.state.io,
});

const duty = (su: ReturnType<typeof setup>, ch: number) => (su.block('Pins').state as { duty: number[] }).duty[ch - 1]!;

t.test('DigitalActuator soft start ramps the duty on over the preset, switches off at once', async (t) => {
  const su = setup();
  su.create('Pins', 'MockPins', {});
  su.create('lamp', 'DigitalActuator', { hwDevice: link('Pins'), channel: 1, transitionDurationPreset: 'ST_MEDIUM' });
  t.equal(su.data('lamp').transitionDurationValue, 0.75);
  su.patch('lamp', 'DigitalActuator', { storedState: 'STATE_ACTIVE' });
  const seen: number[] = [];
  await su.run(1000, 10, [() => void seen.push(duty(su, 1))]);
  t.equal(seen[0], 0, 'the ramp starts at 0 % when switched on');
  t.ok(seen[1]! > 0 && seen[1]! < 2, `then rises by 100 % per 0.75 s (${seen[1]!.toFixed(2)} % after 10 ms)`);
  const full = seen.findIndex((d) => d === 100);
  t.ok(full >= 73 && full <= 77, `100 % after 0.75 s (${full * 10} ms)`);
  t.ok(
    seen.every((d, i) => i === 0 || d >= seen[i - 1]!),
    'monotone up',
  );
  t.equal(su.data('lamp').state, 'STATE_ACTIVE');
  su.patch('lamp', 'DigitalActuator', { storedState: 'STATE_INACTIVE' });
  t.equal(duty(su, 1), 0, 'off at once');
  su.patch('lamp', 'DigitalActuator', {
    transitionDurationPreset: 'ST_CUSTOM',
    transitionDurationSetting: { __objtype: 'Quantity', value: 2, unit: 's' },
    invert: true,
  });
  t.equal(su.data('lamp').transitionDurationValue, 2);
  su.patch('lamp', 'DigitalActuator', { storedState: 'STATE_ACTIVE' });
  await su.run(1000, 10);
  t.ok(
    Math.abs(duty(su, 1) - 50) <= 1.5,
    `inverted: halfway through the 2 s ramp the pin duty is ~50 % (${duty(su, 1).toFixed(1)})`,
  );
  await su.run(1100, 10);
  t.equal(duty(su, 1), 0, 'inverted and fully on: the pin is low all the time');
  su.patch('lamp', 'DigitalActuator', { transitionDurationPreset: 'ST_OFF', storedState: 'STATE_INACTIVE' });
  su.patch('lamp', 'DigitalActuator', { storedState: 'STATE_ACTIVE' });
  t.equal(duty(su, 1), 0, 'ST_OFF: straight on (inverted: pin low)');
  t.equal(su.data('lamp').transitionDurationValue, 0);
});

t.test('channels without PWM: transitionDurationValue 0 s and a plain switch', async (t) => {
  const su = setup({ extraTypes: [RelayPins] });
  su.create('Relays', 'RelayPins', {});
  su.create('pump', 'DigitalActuator', {
    hwDevice: link('Relays'),
    channel: 1,
    transitionDurationPreset: 'ST_SLOW',
    storedState: 'STATE_ACTIVE',
  });
  t.equal(su.data('pump').transitionDurationValue, 0);
  t.equal((su.block('Relays').state as { pins: boolean[] }).pins[0], true, 'on at once');
  su.create('fast', 'FastPwm', { hwDevice: link('Relays'), channel: 2, storedSetting: 50 });
  t.equal(su.data('fast').value, null, 'FastPwm on a channel without PWM achieves nothing');
  t.equal(su.data('fast').setting, 50);
});

t.test(
  'FastPwm: analog constraints, soft start both ways, 0 % once without a setting, frequency fallback',
  async (t) => {
    const su = setup();
    su.create('Pins', 'MockPins', {});
    su.create('pump', 'FastPwm', {
      hwDevice: link('Pins'),
      channel: 4,
      storedSetting: 80,
      frequency: 'PWM_FREQ_2000HZ',
      transitionDurationPreset: 'ST_SLOW',
      constraints: { max: { value: 60, enabled: true } },
    });
    const d = su.data('pump');
    t.equal(d.setting, 60, 'max constraint');
    t.equal(d.constraints.max.limiting, true);
    t.equal(d.transitionDurationValue, 2);
    t.equal(d.value, 0, 'the ramp starts from 0 %');
    await su.run(1000, 10);
    t.ok(Math.abs(su.data('pump').value - 50) <= 1.5, `after 1 s at 100 %/2 s: ~50 % (${su.data('pump').value})`);
    await su.run(300, 10);
    t.equal(su.data('pump').value, 60, 'holds at the setting');
    t.equal(duty(su, 4), 60);
    su.patch('pump', 'FastPwm', { storedSetting: 20 });
    await su.run(400, 10);
    t.ok(Math.abs(su.data('pump').value - 40) <= 1.5, `ramps down too (${su.data('pump').value})`);
    su.patch('pump', 'FastPwm', { enabled: false });
    t.equal(duty(su, 4), 0, 'disabled: 0 %');
    t.equal(su.data('pump').setting, null);
    su.patch('pump', 'FastPwm', { enabled: true, transitionDurationPreset: 'ST_OFF', invert: true });
    t.equal(duty(su, 4), 80, 'no ramp, inverted: 20 % setting = 80 % pin duty');
    t.equal(su.data('pump').value, 20);
    t.equal(
      at(su.runtime.read({ id: 'Pins' }).json().data, 'channels', 3, 'claimedBy', 'id'),
      'pump',
      'the channel is claimed',
    );
    su.create('sensor', 'TempSensorExternal', { setting: 18, timeout: 0 });
    su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 20, enabled: true });
    su.create('pid', 'Pid', { inputId: link('sp'), outputId: link('pump'), kp: 10, enabled: true });
    await su.run(1000, 100);
    t.equal(su.data('pump').claimedBy, 'pid', 'a PID can drive it as an analog actuator');
    t.ok(su.data('pump').desiredSetting > 0, `with the PID's output (${su.data('pump').desiredSetting} %)`);
    t.equal(duty(su, 4), 100 - su.data('pump').setting);
    su.runtime.delete({ id: 'pid' });
    su.runtime.delete({ id: 'pump' });
    t.equal(duty(su, 4), 100, 'deleted while inverted: the pin is left inactive (high)');
  },
);
