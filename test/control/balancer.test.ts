import t from 'tap';
import { link, setup } from './setup.js';

t.test('Balancer: over-subscription is scaled to 100 %, headroom is shared, clients come and go', async (t) => {
  const su = setup();
  su.create('balancer', 'Balancer', {});
  const balanced = { balanced: { balancerId: link('balancer'), enabled: true } };
  su.create('a', 'ActuatorAnalogMock', { storedSetting: 80, constraints: balanced });
  su.create('b', 'ActuatorAnalogMock', { storedSetting: 40, constraints: balanced });
  await su.run(3000, 100);
  t.ok(Math.abs(su.data('a').setting - 200 / 3) < 1e-6, `80 -> ${su.data('a').setting.toFixed(2)}`);
  t.ok(Math.abs(su.data('b').setting - 100 / 3) < 1e-6, `40 -> ${su.data('b').setting.toFixed(2)}`);
  t.equal(su.data('a').constraints.balanced.limiting, true);
  t.ok(Math.abs(su.data('a').constraints.balanced.granted - 200 / 3) < 1e-6);
  const clients = su.runtime.read({ id: 'balancer' }).json().data.clients as {
    id: { id: string };
    requested: number;
    granted: number;
  }[];
  t.same(
    clients.map((c) => [c.id.id, c.requested]),
    [
      ['a', 80],
      ['b', 40],
    ],
  );
  su.patch('a', 'ActuatorAnalogMock', { storedSetting: 30 });
  await su.run(3000, 100);
  t.equal(su.data('a').setting, 30, 'within the budget: not limited');
  t.equal(su.data('b').setting, 40);
  t.equal(su.data('a').constraints.balanced.limiting, false);
  t.equal(su.data('b').constraints.balanced.granted, 55, 'headroom shared evenly');
  su.patch('a', 'ActuatorAnalogMock', { storedSetting: 90 });
  su.runtime.delete({ id: 'b' });
  await su.run(5000, 100);
  t.equal(su.data('a').setting, 90, 'a deleted client drops out');
  t.equal((su.runtime.read({ id: 'balancer' }).json().data.clients as unknown[]).length, 1);
  t.end();
});
