// Two PCA9685 blocks on one chip, as a backup (or an older store) holds them and a load keeps
// them, in the app on the emulated PCA9685 through the real driver: one that goes (deleted, or
// moved to another address) leaves the channels only it drove at 0 %, and the other block's
// channel at the duty it drives, never touched. (The same for the expanders and the DS2408:
// chip-twins.test.ts.)
import t, { type Test } from 'tap';
import type { SimPca9685 } from '../../drivers/sim/pca9685-sim.js';
import { simApp } from '../hardware/sim-app.js';
import { link } from './setup.js';

const SIM = {
  plant: { ambient: 20, initial: { beer: 20, air: 20 } },
  i2cIo: [
    { name: 'pwm', type: 'PCA9685', address: '0x40' },
    { name: 'other', type: 'PCA9685', address: '0x41' },
  ],
};

/** PWM (0x40) with Fan at 60 % on channel 1, and a second block on the chip, Twin, with Pump at 80 % on channel 2. */
async function twins(t: Test) {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  const create = async (body: unknown) => t.equal((await s.post('blocks/create', body)).status, 201);
  await create({ id: 'PWM', type: 'PCA9685', data: { bus: 'sim', address: 0x40, frequency: 200 } });
  await create({ id: 'Fan', type: 'FastPwm', data: { hwDevice: link('PWM'), channel: 1, storedSetting: 60 } });
  await s.run(2000);
  const backup = s.app.runtime.backupSave();
  const nid = Math.max(...backup.blocks.map((b) => b.nid)) + 1;
  const pwm = backup.blocks.find((b) => b.id === 'PWM')!;
  backup.blocks.push(
    { ...pwm, id: 'Twin', nid } as never,
    {
      id: 'Pump',
      nid: nid + 1,
      type: 'FastPwm',
      serviceId: pwm.serviceId,
      data: { hwDevice: link('Twin'), channel: 2, storedSetting: 80 },
      meta: {},
    } as never,
  );
  t.same((await s.app.runtime.backupLoad(backup)).failures, []);
  await s.run(2000);
  const pca = s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'pwm')!.chip as SimPca9685;
  const near = (value: number, want: number) => Math.abs(value - want) < 0.1;
  t.ok(
    near(pca.duty(1), 60) && near(pca.duty(2), 80),
    `the fan at 60 % and the pump at 80 % (${pca.duty(1)}, ${pca.duty(2)})`,
  );
  // The fan's channel looked at every 10 ms through what follows: it must never leave 60 %.
  let fanOff = 0;
  const run = async (ms: number) => {
    for (let at = 0; at < ms; at += 10) {
      await s.run(10, 10);
      if (!near(pca.duty(1), 60)) fanOff++;
    }
  };
  return { s, pca, run, fanOff: () => fanOff };
}

t.test(
  'one of two blocks on a PCA9685 deleted with its channel at 80 %: that channel goes to 0 %, the other stays',
  async (t) => {
    const { s, pca, run, fanOff } = await twins(t);
    t.equal((await s.post('blocks/delete', { id: 'Twin' })).status, 200);
    await run(3000);
    t.equal(pca.duty(2), 0, 'the pump channel is at 0 %: no block drives it');
    t.equal(fanOff(), 0, 'the fan channel, on the other block, stayed at 60 % throughout');
    t.equal(s.data('PWM').connected, true, 'the chip is still the other block’s');
  },
);

t.test(
  'one of two blocks on a PCA9685 moved to another address: the channel it left at 0x40 goes to 0 %',
  async (t) => {
    const { s, pca, run, fanOff } = await twins(t);
    const other = s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'other')!.chip as SimPca9685;
    t.equal((await s.post('blocks/patch', { id: 'Twin', type: 'PCA9685', data: { address: 0x41 } })).status, 200);
    await run(3000);
    t.equal(pca.duty(2), 0, 'the pump channel at 0x40 is at 0 %: no block drives it there');
    t.ok(Math.abs(other.duty(2) - 80) < 0.1, `the pump drives channel 2 of the chip at 0x41 (${other.duty(2)})`);
    t.equal(fanOff(), 0, 'the fan channel stayed at 60 % throughout');
  },
);
