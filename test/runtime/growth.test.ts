// 23.10: a create, patch or delete must not cost more as blocks grow. No wall clock: the test
// counts full passes over the block table (every such pass goes through table.values()) and
// full rebuilds of the scheduler order, while blocks are created, re-linked and deleted.
import t, { type Test } from 'tap';
import { forEachLink } from '../../src/codec/fields.js';
import type { BlockRuntime } from '../../src/runtime/runtime.js';
import { testRuntime } from '../helpers/runtime.js';

const link = (id: string) => ({ __objtype: 'Link', id });

function chain(runtime: BlockRuntime, i: number, step: () => void): void {
  const c = (id: string, type: string, data: Record<string, unknown>) => {
    runtime.create({ id: `${id} ${i}`, type, data });
    step();
  };
  c('sensor', 'TempSensorMock', { setting: 20 });
  c('setpoint', 'SetpointSensorPair', { enabled: true, storedSetting: 20, sensorId: link(`sensor ${i}`) });
  c('pins', 'MockPins', {});
  c('actuator', 'DigitalActuator', { hwDevice: link(`pins ${i}`), channel: 1 });
  c('pwm', 'ActuatorPwm', { enabled: true, actuatorId: link(`actuator ${i}`), period: 10 });
  c('pid', 'Pid', { enabled: true, inputId: link(`setpoint ${i}`), outputId: link(`pwm ${i}`), kp: 60 });
}

/** Every writable link in the scheduler order: inputs before readers, drivers before targets. */
function orderViolations(t: Test, runtime: BlockRuntime): string[] {
  const list = runtime.order.current().filter((b) => runtime.table.isLive(b));
  const at = new Map(list.map((b, i) => [b, i]));
  const out: string[] = [];
  t.equal(list.length, runtime.table.size, 'every block is in the order once');
  for (const b of list) {
    forEachLink(b.def.fields, b.data as Record<string, unknown>, (path, id, field) => {
      const target = id ? runtime.table.byId(id) : undefined;
      if (!target || target === b || field.readonly) return;
      const ok = field.spec.drives ? at.get(b)! < at.get(target)! : at.get(target)! < at.get(b)!;
      if (!ok) out.push(`${b.id}.${path.join('.')} -> ${target.id}`);
    });
  }
  return out;
}

t.test('creates, patches and deletes make no pass over every block, and the order stays right', async (t) => {
  const { runtime, clock } = testRuntime();
  const step = () => {
    clock.advance(10);
    runtime.tick();
  };
  for (let i = 0; i < 40; i++) chain(runtime, i, step);
  step();
  const rebuildsBefore = runtime.order.rebuilds;
  const values = t.capture(runtime.table, 'values', runtime.table.values);

  for (let i = 40; i < 60; i++) chain(runtime, i, step);
  t.equal(values.calls.length, 0, '20 more chains (120 creates, each followed by a tick): no pass over every block');
  runtime.patch({ id: 'setpoint 3', type: 'SetpointSensorPair', data: { storedSetting: 21 } });
  runtime.patch({ id: 'setpoint 3', type: 'SetpointSensorPair', data: { sensorId: link('sensor 2') } });
  runtime.patch({ id: 'actuator 4', type: 'DigitalActuator', data: { channel: 2 } });
  step();
  t.equal(values.calls.length, 0, 'patches, one that moves a link and one that moves a channel: none either');
  const deleted = runtime.delete({ id: 'pwm 5' });
  step();
  runtime.create({
    id: 'pwm 5',
    type: 'ActuatorPwm',
    data: { enabled: true, actuatorId: link('actuator 5'), period: 10 },
  });
  step();
  runtime.delete({ id: 'sensor 6' });
  step();
  t.equal(values.calls.length, 0, 'deletes, and a create that a dangling link points at again: none either');
  t.equal(runtime.order.rebuilds, rebuildsBefore, 'the scheduler order was never rebuilt from scratch');
  values.restore();
  clock.advance(2000);
  runtime.tick();

  t.same(deleted.dangling, [{ id: 'pid 5', field: 'outputId' }], 'the delete named the link left pointing nowhere');
  t.same(orderViolations(t, runtime), [], 'the order kept block by block is a valid dependency order');
  const pins4 = runtime.read({ id: 'pins 4' }).json().data.channels as Array<{
    id: number;
    claimedBy: { id: string | null };
  }>;
  t.same(
    pins4.slice(0, 2).map((c) => c.claimedBy.id),
    [null, 'actuator 4'],
    'the actuator that moved to channel 2 released channel 1',
  );
  t.equal(
    (runtime.read({ id: 'pwm 5' }).json().data.claimedBy as { id: string }).id,
    'pid 5',
    'the re-created PWM is driven by its PID again',
  );
});

t.test('a structural change (rename) still rebuilds the order, which stays valid', async (t) => {
  const { runtime, clock } = testRuntime();
  const step = () => {
    clock.advance(10);
    runtime.tick();
  };
  for (let i = 0; i < 5; i++) chain(runtime, i, step);
  const before = runtime.order.rebuilds;
  runtime.rename({ existing: 'pwm 2', desired: 'heat pwm' });
  step();
  t.equal(runtime.order.rebuilds, before + 1);
  t.same(orderViolations(t, runtime), []);
  // A patch that reverses an order: the PWM of chain 1 now drives chain 0's actuator too late.
  runtime.patch({ id: 'pwm 1', type: 'ActuatorPwm', data: { actuatorId: link('actuator 0') } });
  step();
  t.same(orderViolations(t, runtime), [], 'a link that cannot be placed makes a rebuild, not a wrong order');
});
