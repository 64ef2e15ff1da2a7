// FastPwm and soft start on emulated Pi GPIO lines: GpioPins offers 80/100 Hz software PWM on
// output lines, and the line really toggles (real timers, so only coarse checks here; the duty
// accuracy is tested on a simulated timer in soft-pwm.test.ts).
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChannelCapability } from '../../src/blocks/shared/enums.js';
import { limit } from '../helpers/limits.js';
import { simApp } from './sim-app.js';

const SIM = {
  plant: { ambient: 20, initial: { beer: 20, air: 20 } },
  gpio: [
    { name: 'lamp', line: 5, direction: 'out' },
    { name: 'door', line: 13, direction: 'in', level: 0 },
  ],
};

t.test('FastPwm on a GPIO output line runs a software PWM; inputs offer none', async (t) => {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  await s.run(1000);
  const [out, inp] = s.data('GpioPins').channels as Array<{ capabilities: number }>;
  t.ok(
    out!.capabilities & ChannelCapability.PWM_100HZ && out!.capabilities & ChannelCapability.PWM_80HZ,
    'outputs: 80 and 100 Hz',
  );
  t.notOk(
    out!.capabilities & (ChannelCapability.PWM_200HZ | ChannelCapability.PWM_2000HZ),
    'no 200 Hz or 2 kHz in software',
  );
  t.notOk(inp!.capabilities & ChannelCapability.PWM_100HZ, 'inputs: no PWM');
  const created = await s.post('blocks/create', {
    id: 'Lamp',
    type: 'FastPwm',
    data: { 'hwDevice<>': 'GpioPins', channel: 1, storedSetting: 40, frequency: 'PWM_FREQ_2000HZ' },
  });
  t.equal(created.status, 201);
  await s.run(200);
  t.equal(s.data('Lamp').value, 40, 'the commanded duty (2 kHz falls back to 100 Hz)');
  const sim = s.app.hardware.sim!;
  let edges = 0;
  let last = sim.gpio.physical(5);
  let high = 0;
  let samples = 0;
  // Sampled until it has toggled 10 times (40 ms at 100 Hz; a loaded machine gets its limit).
  const deadline = Date.now() + limit(5000);
  while ((edges < 10 || samples < 40) && Date.now() < deadline) {
    await sleep(1);
    const level = sim.gpio.physical(5);
    if (level !== last) edges++;
    last = level;
    samples++;
    if (level === 1) high++;
  }
  t.ok(edges >= 10, `the line toggles (${edges} edges seen in ${samples} samples)`);
  t.ok(high > 0 && high < samples, `high part of the time (${high}/${samples} samples)`);
  await s.post('blocks/patch', { id: 'Lamp', type: 'FastPwm', data: { storedSetting: 0 } });
  await s.run(200);
  await sleep(30);
  t.equal(sim.gpio.physical(5), 0, '0 %: steady low');
  await s.post('blocks/delete', { id: 'Lamp' });
  await s.post('blocks/create', {
    id: 'Lamp2',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'GpioPins', channel: 1, transitionDurationPreset: 'ST_FAST' },
  });
  await s.run(200);
  t.equal(s.data('Lamp2').transitionDurationValue.value, 0.25, 'soft start is available on GPIO outputs');
});
