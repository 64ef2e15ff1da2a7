// The answer to a twin (fleet/twin.ts): a controller that took this one's service id learns of
// this one only from it, since what it read at its start was a retained copy. An answer held back
// by the 10 s limit must go out once the 10 s are over, or a twin that restarted quickly (a crash
// loop, a restart right after a first look) never hears of this controller and shows no alert.
import t from 'tap';
import { FleetPeers } from '../../src/fleet/peers.js';

const presence = (fields: Record<string, unknown>) =>
  Buffer.from(JSON.stringify({ serviceId: 'me', online: true, version: '1.0', dashboardUrl: null, ...fields }));

t.test('a twin that restarts within 10 s of the answer to its last run is answered too', async (t) => {
  let now = 100_000;
  const timers: Array<{ at: number; fn: () => void }> = [];
  const fleet = new FleetPeers({
    serviceId: 'me',
    topicRoot: 'svc',
    version: '1.0',
    dashboardUrl: () => 'http://me.local:5000/',
    now: () => now,
    monotonic: () => now,
    log: { warn: () => {}, info: () => {} } as never,
    instance: 'c0ffee000001',
    later: (fn, ms) => void timers.push({ at: now + ms, fn }),
  });
  const answers: Array<{ instance: string }> = [];
  fleet.attach({
    subscribeRaw: () => () => {},
    presence: () => () => {},
    publish: (_topic, payload) => (answers.push(payload as { instance: string }), true),
  });
  const advance = (ms: number) => {
    now += ms;
    for (const timer of timers.splice(0)) {
      if (timer.at <= now) timer.fn();
      else timers.push(timer);
    }
  };
  const own = (fields: Record<string, unknown>) => fleet.handle('svc/fleet/me', presence(fields), false);
  own({ instance: 'bad0bad00001' });
  t.equal(answers.length, 1, 'the twin is answered');
  advance(3000);
  own({ instance: 'bad0bad00001', online: false }); // it stops
  own({ instance: 'bad0bad00002' }); // and starts again, 3 s later
  t.same(fleet.twin()?.instance, 'bad0bad00002');
  advance(7000);
  advance(1000);
  t.equal(answers.length, 2, 'its new run is answered once the 10 s are over');
  for (let i = 0; i < 50; i++) own({ instance: `f0f0f0f0${String(i).padStart(4, '0')}` });
  advance(10_000);
  advance(10_000);
  t.ok(answers.length <= 4, `forged run ids get at most one answer per 10 s (${answers.length})`);
});

t.test('a twin that went offline while this controller was off the broker is gone after it reconnects', async (t) => {
  const fleet = new FleetPeers({
    serviceId: 'me',
    topicRoot: 'svc',
    version: '1.0',
    dashboardUrl: () => null,
    log: { warn: () => {}, info: () => {} } as never,
    instance: 'c0ffee000001',
    later: () => {},
  });
  fleet.handle('svc/fleet/me', presence({ instance: 'bad0bad00001' }), false);
  t.equal(fleet.twin()?.instance, 'bad0bad00001', 'a twin');
  // Its offline message was sent while this controller's connection was down: at the
  // reconnect's subscription the broker hands over the retained copy.
  fleet.handle('svc/fleet/me', presence({ instance: 'bad0bad00001', online: false }), true);
  t.equal(fleet.twin(), null, 'the alert ends');
});
