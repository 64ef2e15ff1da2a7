// A Sequence stopped in its ERROR state (a line naming a block that is gone, a line that does not
// parse) runs nothing until the cause is gone: a cold crash that does not happen. Only its card
// said so; it is an alert now, after the rule's time (60 s by default), naming the sequence as it
// was typed (user text), the line and the error, on the API and a webhook; it resolves when the
// sequence leaves ERROR, is turned off per block like every block alert, and a restart neither
// sends it again nor resolves it, nor drops one still waiting out its time.
// The app over REST (real SQLite) on a manual clock; the webhook a real HTTP receiver.
import t from 'tap';
import { HARD_NAMES } from '../helpers/names.js';
import { limit } from '../helpers/limits.js';
import type { SimApp } from '../hardware/sim-app.js';
import { HttpReceiver, until } from './receivers.js';
import { active, dataDir, open, put, SECOND, WALL } from './restart-rig.js';

const KIND = 'sequence-error';
const SEQ = HARD_NAMES.find((n) => n.includes('<script>'))!;
const TARGET = 'Crash Setpoint';
const LINE = `SET_SETPOINT target=${TARGET}, setting=2.0C`;
const link = (id: string) => ({ __objtype: 'Link', id });

const events = async (s: SimApp, event: string) =>
  (await s.get('alerts')).body.history.filter((h: any) => h.event === event && String(h.key).startsWith(`${KIND}:`));

async function crash(s: SimApp, instructions: string[]): Promise<void> {
  const res = await s.post('blocks/create', { id: SEQ, type: 'Sequence', data: { enabled: true, instructions } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
}

async function setpoint(s: SimApp): Promise<void> {
  await s.post('blocks/create', { id: 'Sensor', type: 'TempSensorMock', data: {} });
  const res = await s.post('blocks/create', {
    id: TARGET,
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: link('Sensor') },
  });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
}

t.test(
  'a target that is gone: the alert after the rule time, naming the sequence, the line and the error; resolved when it runs',
  async (t) => {
    const hooks = new HttpReceiver();
    await hooks.start();
    t.teardown(() => hooks.stop());
    const dir = dataDir(t);
    const s = await open(dir, WALL);
    t.teardown(() => s.close());
    t.equal(await put(s, 'alerts/channels/webhook', { url: hooks.url('/hook') }), 200);
    t.same(
      (await s.get('alerts/rules')).body.rules.sequenceError,
      { enabled: true, after: 60 },
      'a rule of its own, on, 60 s',
    );

    await crash(s, [LINE, 'WAIT']);
    await s.run(30 * SECOND, 1000);
    t.equal(s.data(SEQ).status, 'ERROR', 'the sequence is in ERROR');
    t.same(await active(s, KIND), [], 'half the rule time: no alert yet');
    await s.run(40 * SECOND, 1000);
    const [alert] = await active(s, KIND);
    t.ok(alert, 'past the rule time: the alert');
    t.equal(alert?.blockId, SEQ, 'its block is the sequence, by its name');
    t.equal(
      alert?.text,
      `${SEQ} is stopped in ERROR at line 1 (${LINE}): INVALID_TARGET: no block "${TARGET}" that SET_SETPOINT can use`,
      'the text names the sequence as typed, the line and the error',
    );
    t.same(alert?.values, { line: 1, instruction: LINE, error: 'INVALID_TARGET' });
    const fired = await until('the webhook message', limit(10_000), () =>
      hooks.json('/hook').find((m) => m.event === 'fired' && m.condition === KIND),
    );
    t.equal(fired.title, `[${s.app.config.serviceId}] Sequence in error: ${SEQ}`, 'the title names it as typed');
    t.equal(fired.message, `${alert?.text}.`, 'the webhook carries the text intact');

    // The target made: the line runs, the sequence leaves ERROR, the alert resolves.
    await setpoint(s);
    await s.run(2 * 60 * SECOND, 1000);
    t.not(s.data(SEQ).status, 'ERROR', `the sequence goes on (${s.data(SEQ).errorMessage})`);
    t.same(await active(s, KIND), [], 'resolved');
    const [resolved] = await events(s, 'resolved');
    t.match(resolved?.text, /Back to normal after/, 'back to normal');
    t.equal((await events(s, 'fired')).length, 1, 'fired once');
  },
);

t.test('a line that does not parse: the alert names the parse error; off for that block in its settings', async (t) => {
  const s = await open(dataDir(t), WALL);
  t.teardown(() => s.close());
  await setpoint(s);
  const bad = `SET_SETPOINT target=${TARGET}, setting=`;
  await crash(s, ['WAIT_DURATION duration=1s', bad]);
  await s.run(2 * 60 * SECOND, 1000);
  const [alert] = await active(s, KIND);
  t.match(alert?.text, `${SEQ} is stopped in ERROR at line 2 (${bad}): `, 'the line that does not parse');
  t.equal(alert?.values.error, 'INVALID_ARGUMENT');
  // Renamed: the same alert (its key is the block's), naming it as it is called now.
  t.equal((await s.post('blocks/rename', { existing: SEQ, desired: 'Cold Crash' })).status, 200);
  await s.run(5 * SECOND, 1000);
  const [renamed] = await active(s, KIND);
  t.equal(renamed?.key, alert?.key, 'the same alert');
  t.match(renamed?.text, /^Cold Crash is stopped in ERROR at line 2 /, 'by its new name');
  t.equal(await put(s, 'alerts/rules', { blocks: { 'Cold Crash': { enabled: false } } }), 200);
  await s.run(5 * SECOND, 1000);
  t.same(await active(s, KIND), [], 'its alerts off: ended');
  t.match(
    (await events(s, 'resolved'))[0]?.text,
    /^\[edge-one\] Alert turned off: Sequence in error: /,
    'as turned off',
  );
  await s.run(5 * 60 * SECOND, 1000);
  t.equal((await events(s, 'fired')).length, 1, 'not fired again while off');
});

t.test('a disabled sequence, or the rule off, is no alert', async (t) => {
  const s = await open(dataDir(t), WALL);
  t.teardown(() => s.close());
  t.equal(await put(s, 'alerts/rules', { sequenceError: { enabled: false } }), 200);
  await crash(s, [LINE]);
  await s.run(3 * 60 * SECOND, 1000);
  t.equal(s.data(SEQ).status, 'ERROR');
  t.same(await active(s, KIND), [], 'the rule off: no alert');
  t.equal(await put(s, 'alerts/rules', { sequenceError: { enabled: true, after: 60 } }), 200);
  await s.post('blocks/patch', { id: SEQ, type: 'Sequence', data: { enabled: false } });
  await s.run(3 * 60 * SECOND, 1000);
  t.same(await active(s, KIND), [], 'the sequence disabled: no alert');
  t.same(await events(s, 'fired'), []);
});

t.test('a restart sends nothing again, resolves nothing, and drops no alert still waiting out its time', async (t) => {
  const dir = dataDir(t);
  let s = await open(dir, WALL);
  t.teardown(() => s.close());
  await crash(s, [LINE]);
  // Waiting out its time (50 of 60 s), then stopped for a minute: the restart goes on from there.
  await s.run(51 * SECOND, 1000);
  let wall = WALL;
  await s.close();
  s = await open(dir, (wall += 60 * SECOND));
  await s.run(5 * SECOND, 1000);
  t.same(await active(s, KIND), [], 'just after the restart: not yet');
  await s.run(30 * SECOND, 1000);
  t.equal((await active(s, KIND)).length, 1, 'the rest of the rule time after the restart: the alert');
  t.equal((await events(s, 'fired')).length, 1, 'fired once');

  // Active across a restart: still active, not fired again, not resolved.
  await s.close();
  s = await open(dir, (wall += 10 * 60 * SECOND));
  await s.run(5 * 60 * SECOND, 1000);
  t.equal((await active(s, KIND)).length, 1, 'still active after the restart');
  t.equal((await events(s, 'fired')).length, 1, 'not fired again');
  t.equal((await events(s, 'resolved')).length, 0, 'nor resolved');

  // The cause gone just before a stop (the target made): after the restart the alert resolves, once.
  await setpoint(s);
  await s.close();
  s = await open(dir, (wall += 10 * 60 * SECOND));
  await s.run(2 * 60 * SECOND, 1000);
  t.same(await active(s, KIND), [], 'the cause gone: resolved after the restart');
  t.equal((await events(s, 'resolved')).length, 1, 'resolved once');
});
