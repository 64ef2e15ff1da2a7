// A block whose alert is active is deleted or renamed. Deleted: nothing came back, so the alert
// ends at once with a message that says the block was deleted, not "Back to normal after ..."
// a minute later (a brewer reading it on the phone took the sensor for recovered). Renamed: the
// alert goes on under the new name, and its messages name that (what it was, too, when it was
// already clearing). Its alerts turned off in the rules: the heater is still on, so that ends
// it at once too, told as turned off.
import t from 'tap';
import { startApp, type RunningApp } from '../helpers/app.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { ManualClock } from '../../src/runtime/clock.js';

async function heaterOn(t: {
  teardown(fn: () => unknown): void;
}): Promise<{ rt: RunningApp; timers: ManualTimers; key: string }> {
  const clock = new ManualClock(1000);
  const timers = new ManualTimers(clock);
  const rt = await startApp({ hardware: 'sim' }, { clock, timers });
  t.teardown(() => rt.close());
  await rt.post('blocks/create', { id: 'pins', type: 'MockPins', data: {} });
  const made = await rt.post('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'pins', channel: 1, storedState: 'STATE_ACTIVE' },
  });
  rt.app.alerts.setRules({ resolveAfter: 60, blocks: { Heater: { onAfter: 1 } } });
  await timers.advance(3000);
  const key = `output-on:${made.body.nid}`;
  if (!rt.app.alerts.active().some((a) => a.key === key)) throw new Error('no output-on alert');
  return { rt, timers, key };
}

const events = (rt: RunningApp, key: string, event: string) =>
  rt.app.alerts.history().filter((h) => h.key === key && h.event === event);

t.test(
  'deleting a block whose alert is active ends the alert at once, as deleted, not as back to normal',
  async (t) => {
    const { rt, timers, key } = await heaterOn(t);
    t.equal((await rt.post('blocks/delete', { id: 'Heater' })).status, 200);
    t.same(
      rt.app.alerts.active().filter((a) => a.key === key),
      [],
      'no longer active at once, not resolveAfter later',
    );
    const ended = events(rt, key, 'resolved');
    t.equal(ended.length, 1, 'one resolve');
    t.match(ended[0]?.text, /Heater was deleted/, 'says the block was deleted');
    t.notMatch(ended[0]?.text, /Back to normal/, 'not a recovery');
    await timers.advance(61_000);
    t.equal(events(rt, key, 'resolved').length, 1, 'no second resolve later');
  },
);

t.test('a block renamed while its alert is active: the alert and its resolve name the new id', async (t) => {
  const { rt, timers, key } = await heaterOn(t);
  t.equal((await rt.post('blocks/rename', { existing: 'Heater', desired: 'Boiler' })).status, 200);
  await timers.advance(1000);
  const alert = rt.app.alerts.active().find((a) => a.key === key);
  t.equal(alert?.blockId, 'Boiler');
  t.match(alert?.text, /^Boiler /, 'the text names the new id');
  await rt.post('blocks/patch', { id: 'Boiler', type: 'DigitalActuator', data: { storedState: 'STATE_INACTIVE' } });
  await timers.advance(61_000);
  const resolved = events(rt, key, 'resolved');
  t.equal(resolved.length, 1, 'resolved once');
  t.match(resolved[0]?.text, /Boiler/);
  t.notMatch(resolved[0]?.text, /Heater/, 'the old name is gone');
  t.match(resolved[0]?.text, /Back to normal/, 'switched off: back to normal');
});

t.test("turning a block's alerts off while one is active ends it as turned off, not as back to normal", async (t) => {
  const { rt, timers, key } = await heaterOn(t);
  rt.app.alerts.setRules({ resolveAfter: 60, blocks: { Heater: { onAfter: 1, enabled: false } } });
  await timers.advance(1000);
  t.same(
    rt.app.alerts.active().filter((a) => a.key === key),
    [],
    'no longer active at once',
  );
  const ended = events(rt, key, 'resolved');
  t.equal(ended.length, 1, 'one resolve');
  t.match(ended[0]?.text, /turned off/, 'says its alerts were turned off');
  t.notMatch(ended[0]?.text, /Back to normal/, 'not a recovery: the heater is still on');
});

t.test('a block renamed while its alert is clearing: the resolve names only the new id', async (t) => {
  const { rt, timers, key } = await heaterOn(t);
  await rt.post('blocks/patch', { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_INACTIVE' } });
  await timers.advance(1000);
  t.equal((await rt.post('blocks/rename', { existing: 'Heater', desired: 'Boiler' })).status, 200);
  await timers.advance(61_000);
  const resolved = events(rt, key, 'resolved');
  t.equal(resolved.length, 1, 'resolved once');
  t.match(resolved[0]?.text, /Back to normal.*It was: Boiler has been on/, 'what it was, under the new name');
  t.notMatch(resolved[0]?.text, /Heater/, 'the old name is gone');
});
