// `node dist/scripts/marker-cost.js`: what writing both type markers (__objtype and __bloxtype)
// costs in bytes, for a 100-block `blocks/all/read` answer and the state message carrying the
// same blocks, against writing one marker only. Raw and gzip-compressed sizes.
import { gzipSync } from 'node:zlib';
import { blockTypes } from '../src/blocks/index.js';
import { stateMessage } from '../src/mqtt/state.js';
import { ManualClock } from '../src/runtime/clock.js';
import { MemoryPersistence } from '../src/runtime/persistence.js';
import { ALL, BlockRuntime } from '../src/runtime/runtime.js';

const runtime = new BlockRuntime({
  serviceId: 'edge-one',
  version: 'x',
  types: blockTypes,
  clock: new ManualClock(0),
  persistence: new MemoryPersistence(),
});
runtime.load();
const link = (id: string) => ({ __bloxtype: 'Link', id });
// 10 fermenter chains of 10 blocks: the mix of a real installation.
for (let i = 0; i < 10; i++) {
  const c = (id: string, type: string, data: Record<string, unknown>) =>
    runtime.create({ id: `${id} ${i}`, type, data });
  c('pins', 'MockPins', {});
  c('sensor', 'TempSensorMock', { setting: 20 });
  c('setpoint', 'SetpointSensorPair', { enabled: true, storedSetting: 20, sensorId: link(`sensor ${i}`) });
  c('mutex', 'Mutex', {});
  const mutexed = { mutexed: { mutexId: link(`mutex ${i}`), extraHoldTime: 600, enabled: true } };
  c('heater', 'DigitalActuator', { hwDevice: link(`pins ${i}`), channel: 1, constraints: mutexed });
  c('cooler', 'DigitalActuator', {
    hwDevice: link(`pins ${i}`),
    channel: 2,
    constraints: { ...mutexed, minOn: { duration: 60, enabled: true } },
  });
  c('heat pwm', 'ActuatorPwm', { actuatorId: link(`heater ${i}`), period: 10, enabled: true });
  c('cool pwm', 'ActuatorPwm', { actuatorId: link(`cooler ${i}`), period: 600, enabled: true });
  c('heat pid', 'Pid', { inputId: link(`setpoint ${i}`), outputId: link(`heat pwm ${i}`), kp: 20, enabled: true });
  c('cool pid', 'Pid', { inputId: link(`setpoint ${i}`), outputId: link(`cool pwm ${i}`), kp: -20, enabled: true });
}
runtime.tick(1000);
const user = runtime
  .read(ALL)
  .json()
  .filter((b) => b.nid >= 100)
  .slice(0, 100);
const drop = (key: string) => JSON.stringify(user, (k, v) => (k === key ? undefined : v));
const state = (blocks: unknown) =>
  JSON.stringify(
    stateMessage('edge-one', '30s', {
      status: { online: true, serviceId: 'edge-one', version: 'x' } as never,
      blocks: blocks as never,
      relations: runtime.relations(),
      claims: runtime.claims(),
    }),
  );
const size = (s: string) => ({ raw: Buffer.byteLength(s), gzip: gzipSync(s).length });
const both = JSON.stringify(user);
const one = drop('__objtype');
const rows = {
  'all/read, both markers': size(both),
  'all/read, __bloxtype only': size(one),
  'state, both markers': size(state(user)),
  'state, __bloxtype only': size(state(JSON.parse(one))),
};
console.log(`${user.length} blocks`);
for (const [name, s] of Object.entries(rows))
  console.log(`${name.padEnd(28)} ${String(s.raw).padStart(7)} B  gzip ${String(s.gzip).padStart(6)} B`);
const extra = (a: string, b: string) =>
  `+${(((rows as any)[a].raw / (rows as any)[b].raw - 1) * 100).toFixed(1)} % raw, +${(((rows as any)[a].gzip / (rows as any)[b].gzip - 1) * 100).toFixed(1)} % gzip`;
console.log(
  `all/read: ${extra('all/read, both markers', 'all/read, __bloxtype only')}; state: ${extra('state, both markers', 'state, __bloxtype only')}`,
);
