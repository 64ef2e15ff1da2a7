// A block the user disables while its alert is active: the problem stands (a disabled setpoint has
// no setting to be near, a disabled external sensor reads no value), but nothing watches it any
// more. The alert ends at the next check with "No longer watched: ... was disabled", as a setpoint's
// no-setting alert does (no-setting.ts), not "Back to normal" a minute later; and a disabled block
// raises none ("Sensor not reading ... disconnected or failing" of a sensor the user turned off).
import t from 'tap';
import type { RunningApp } from '../helpers/app.js';
import { activeOf, app, beerSetpointAt12, outOfBand, waitStartsOver } from './pending-wait.js';

const events = (rt: RunningApp, key: string, event: string) =>
  rt.app.alerts.history().filter((h) => h.key === key && h.event === event);

t.test('a setpoint out of band disabled: "No longer watched", not "Back to normal"', async (t) => {
  const { rt, timers } = await app(t);
  const key = await beerSetpointAt12(rt);
  rt.app.alerts.setRules({ resolveAfter: 60, blocks: { 'Beer Setpoint': { after: 1, band: 2 } } });
  await timers.advance(3000);
  t.equal(activeOf(rt, key).length, 1, 'out of band: the alert');
  t.equal(
    (await rt.post('blocks/patch', { id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { enabled: false } }))
      .status,
    200,
  );
  await timers.advance(2000);
  t.same(activeOf(rt, key), [], 'ended at the next check, not resolveAfter later');
  const [ended] = events(rt, key, 'resolved');
  t.match(
    ended?.text,
    'No longer watched: Temperature out of band: Beer Setpoint: Beer Setpoint was disabled while this alert was active',
  );
  t.notMatch(ended?.text, /Back to normal/, 'not a recovery: the beer is still 8 degrees off');
  await timers.advance(61_000);
  t.equal(events(rt, key, 'resolved').length, 1, 'no second resolve');
  t.notOk(
    events(rt, key, 'resolved').some((e) => /Back to normal/.test(e.text)),
    'none says "Back to normal"',
  );
});

t.test('an external sensor disabled: its alert ends as no longer watched; disabled, it raises none', async (t) => {
  const { rt, timers } = await app(t);
  const made = await rt.post('blocks/create', {
    id: 'Outside',
    type: 'TempSensorExternal',
    data: { enabled: true, timeout: 5, setting: 8 },
  });
  rt.app.alerts.setRules({ resolveAfter: 60, blocks: { Outside: { after: 1 } } });
  // No write for its timeout: no value, the alert.
  await timers.advance(10_000);
  const key = `sensor-null:${made.body.nid}`;
  t.equal(activeOf(rt, key).length, 1, 'no writes: the alert');
  t.equal(
    (await rt.post('blocks/patch', { id: 'Outside', type: 'TempSensorExternal', data: { enabled: false } })).status,
    200,
  );
  await timers.advance(2000);
  t.same(activeOf(rt, key), [], 'ended at the next check');
  const [ended] = events(rt, key, 'resolved');
  t.match(
    ended?.text,
    'No longer watched: Sensor not reading: Outside: Outside was disabled while this alert was active',
  );
  t.notMatch(ended?.text, /Back to normal/);
  await timers.advance(5 * 60_000);
  t.same(activeOf(rt, key), [], 'disabled, it reads no value and raises no alert');
  t.equal(events(rt, key, 'fired').length, 1, 'fired once only');

  // Enabled again with no writes: watched again.
  await rt.post('blocks/patch', { id: 'Outside', type: 'TempSensorExternal', data: { enabled: true } });
  await timers.advance(10_000);
  t.equal(activeOf(rt, key).length, 1, 'enabled again without a value: the alert again');
});

// A problem waiting out its `after` when its block is disabled: nothing watches it while disabled,
// so its streak is dropped; enabled again, the wait starts over from the first bad check, instead
// of firing at once with the time before (and while) it was disabled counted toward the `after`.
t.test('a setpoint out of band disabled before its alert fired: enabled again, the wait starts over', async (t) => {
  const running = await outOfBand(t);
  const enable = (enabled: boolean) =>
    running.rt.post('blocks/patch', { id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { enabled } });
  t.equal((await enable(false)).status, 200);
  await waitStartsOver(t, running, async () => t.equal((await enable(true)).status, 200));
});

// Control disabled: the blocks are not updated (their values are as they were), so their problems
// are not watched either: one waiting out its `after` does not fire on the stale values, and is
// dropped; control enabled again, the wait starts over.
t.test('control disabled before an alert fired: none on the stale values, the wait starts over', async (t) => {
  const running = await outOfBand(t);
  const control = (enabled: boolean) =>
    fetch(`${running.rt.base}/settings/enabled`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled }),
    }).then((r) => r.status);
  t.equal(await control(false), 200);
  await waitStartsOver(t, running, async () => t.equal(await control(true), 200));
});
