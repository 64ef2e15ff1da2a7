// The fleet list (src/fleet/peers.ts): read from small presence messages on <root>/fleet/<id>,
// bounded (oldest dropped and counted), its own presence, junk, oversized messages and ids that
// break the service-id rule left out and counted; the list itself stays small whatever peers send.
import t from 'tap';
import { FleetPeers, PRESENCE_MAX_BYTES } from '../../src/fleet/peers.js';
import { SERVICE_ID_MAX_LENGTH } from '../../src/shared/service-id.js';
import { loadConfig } from '../../src/config.js';

const presence = (id: string, fields: Record<string, unknown> = {}) =>
  Buffer.from(JSON.stringify({ serviceId: id, online: true, version: '1.0', dashboardUrl: null, ...fields }));
const fleetOf = (o: { max?: number; now?: () => number; monotonic?: () => number; warn?: (m: string) => void } = {}) =>
  new FleetPeers({
    serviceId: 'me',
    topicRoot: 'svc',
    version: '1.0',
    dashboardUrl: () => 'http://me.local:5000/',
    max: o.max,
    now: o.now,
    // A wall clock that does not jump runs with the monotonic one.
    monotonic: o.monotonic ?? o.now,
    log: { warn: (_f: unknown, m: string) => o.warn?.(m), info: () => {} } as any,
    instance: 'c0ffee000001',
  });

t.test('bounded: past max the one seen longest ago is dropped, counted and logged', async (t) => {
  const warned: string[] = [];
  let now = 1000;
  const fleet = fleetOf({ max: 3, now: () => now, warn: (m) => warned.push(m) });
  for (const id of ['a', 'b', 'c']) (now += 10), fleet.handle(`svc/fleet/${id}`, presence(id));
  now += 10;
  fleet.handle('svc/fleet/a', presence('a')); // a is now the most recent
  now += 10;
  fleet.handle('svc/fleet/d', presence('d', { dashboardUrl: 'http://d.local:5000/', version: '1.2' }));
  t.same(
    fleet.list().map((p) => p.serviceId),
    ['d', 'a', 'c'],
    'b, seen longest ago, was dropped',
  );
  t.match(fleet.status(), { controllers: 3, max: 3, dropped: 1 });
  t.equal(warned.length, 1);
  t.match(warned[0], /more than 3 controllers.*\(b\)/);
  t.match(fleet.list()[0], { serviceId: 'd', online: true, dashboardUrl: 'http://d.local:5000/', version: '1.2' });
});

t.test('lastSeen: now for an online controller, when it went offline for an offline one', async (t) => {
  let now = 1000;
  const fleet = fleetOf({ now: () => now });
  fleet.handle('svc/fleet/up', presence('up'));
  fleet.handle('svc/fleet/down', presence('down', { online: false }));
  now = 90_000;
  t.match(Object.fromEntries(fleet.list().map((p) => [p.serviceId, p.lastSeen])), {
    up: new Date(90_000).toISOString(),
    down: new Date(1000).toISOString(),
  });
});

t.test('lastSeen of an offline controller counts on the monotonic clock: a clock jump does not age it', async (t) => {
  // Booted a night behind, a neighbour went offline, then NTP put the clock right.
  let wall = Date.UTC(2026, 10, 1, 6, 0);
  let mono = 0;
  const fleet = fleetOf({ now: () => wall, monotonic: () => mono });
  fleet.handle('svc/fleet/down', presence('down', { online: false }));
  mono += 5 * 60_000;
  wall += 8 * 3_600_000 + 5 * 60_000;
  t.equal(
    fleet.list()[0]!.lastSeen,
    new Date(wall - 5 * 60_000).toISOString(),
    '5 minutes ago on the corrected clock, not 8 hours',
  );
});

t.test(
  'its own presence, junk, forged and other topics are left out and counted; an empty retained one removes',
  async (t) => {
    const warned: string[] = [];
    const fleet = fleetOf({ warn: (m) => warned.push(m) });
    fleet.handle('svc/fleet/me', presence('me'));
    fleet.handle('svc/fleet/y', Buffer.from('not json'));
    fleet.handle('svc/fleet/z', presence('other-id'));
    fleet.handle('svc/fleet/v', Buffer.from(JSON.stringify({ serviceId: 'v', online: 'yes' })));
    fleet.handle('svc/fleet/w', presence('w', { dashboardUrl: 'javascript:alert(1)' }));
    t.same(
      fleet.list().map((p) => [p.serviceId, p.dashboardUrl]),
      [['w', null]],
      'only w, without its non-http link',
    );
    t.equal(fleet.status().ignored, 3);
    t.equal(warned.length, 1, 'one warning a minute for all of them');
    fleet.handle('svc/fleet/w', Buffer.alloc(0));
    t.same(fleet.list(), []);
  },
);

t.test('a message over the presence size is dropped unparsed', async (t) => {
  const fleet = fleetOf();
  const big = presence('big', { version: '1.0', pad: 'x'.repeat(PRESENCE_MAX_BYTES) });
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = ((...a: Parameters<typeof parse>) => (parsed++, parse(...a))) as typeof JSON.parse;
  try {
    fleet.handle('svc/fleet/big', big);
  } finally {
    JSON.parse = parse;
  }
  t.equal(parsed, 0, 'not parsed');
  t.same(fleet.list(), []);
  t.equal(fleet.status().ignored, 1);
});

t.test('fleet ids obey the service-id rule of the config (issue 45.7)', async (t) => {
  const fleet = fleetOf();
  const long = 'x'.repeat(60_000);
  for (let i = 0; i < 100; i++) fleet.handle(`svc/fleet/${long}${i}`, presence(`${long}${i}`));
  const odd = ['a b', 'é', 'a"b', '<script>', 'x'.repeat(SERVICE_ID_MAX_LENGTH + 1)];
  for (const id of odd) fleet.handle(`svc/fleet/${id}`, presence(id));
  const ok = 'x'.repeat(SERVICE_ID_MAX_LENGTH);
  fleet.handle(`svc/fleet/${ok}`, presence(ok));
  t.same(
    fleet.list().map((p) => p.serviceId),
    [ok],
    'only the id the config would take',
  );
  t.equal(fleet.status().ignored, 100 + odd.length);
  t.ok(JSON.stringify(fleet.list()).length < 1000, 'the list stays small');
  // The same rule as the config's serviceId: what the fleet refuses, the config refuses.
  for (const id of [...odd, `${long}1`])
    t.throws(() => loadConfig({ serviceId: id }, {}), `config refuses ${id.slice(0, 20)}`);
  t.equal(loadConfig({ serviceId: ok }, {}).serviceId, ok, 'and takes the longest id the fleet takes');
});

t.test('its own presence message: id, online, version, dashboard, the id of this run', async (t) => {
  const fleet = fleetOf();
  t.same(fleet.own(true), {
    serviceId: 'me',
    online: true,
    version: '1.0',
    dashboardUrl: 'http://me.local:5000/',
    instance: 'c0ffee000001',
  });
  t.ok(JSON.stringify(fleet.own(false)).length < PRESENCE_MAX_BYTES);
});

t.test(
  'a presence of another run on its own topic is a twin; its own, a retained copy or an old one without a run id is not',
  async (t) => {
    let now = 1000;
    const fleet = fleetOf({ now: () => now });
    const answers: unknown[] = [];
    fleet.attach({
      subscribeRaw: () => () => {},
      presence: () => () => {},
      publish: (_topic, payload) => (answers.push(payload), true),
    });
    const own = (fields: Record<string, unknown>, retained = false) =>
      fleet.handle('svc/fleet/me', presence('me', fields), retained);
    own({ instance: 'c0ffee000001' });
    own({ instance: 'bad0bad0bad0' }, true);
    own({});
    own({ instance: 'bad0bad0bad0', online: false });
    t.equal(fleet.twin(), null, 'none of those');
    t.same(fleet.list(), [], 'and its own topic is not in the list');
    own({ instance: 'bad0bad0bad0', dashboardUrl: 'http://copy.local:5000/' });
    t.same(fleet.twin(), { instance: 'bad0bad0bad0', dashboardUrl: 'http://copy.local:5000/' });
    t.match(
      answers,
      [{ serviceId: 'me', online: true, instance: 'c0ffee000001' }],
      'answered once, so the twin hears of it',
    );
    own({ instance: 'bad0bad0bad0' });
    t.equal(answers.length, 1, 'the same twin again: no new answer');
    for (let i = 0; i < 50; i++) own({ instance: `f0f0f0f0${String(i).padStart(4, '0')}` });
    t.equal(answers.length, 1, 'a client forging new run ids gets no answer within 10 s');
    now += 10_000;
    own({ instance: 'bad0bad0bad1' });
    t.equal(answers.length, 2, 'a new run of the twin, 10 s later: answered');
    own({ instance: 'bad0bad0bad1', online: false });
    t.equal(fleet.twin(), null, 'gone when it says it is offline');
    t.equal(fleet.status().sameServiceId, null);
  },
);

t.test('a client forging presences on its own topic cannot flood the log', async (t) => {
  const now = 1000;
  const lines: string[] = [];
  const fleet = fleetOf({ now: () => now, warn: (m) => lines.push(m) });
  for (let i = 0; i < 200; i++) {
    const instance = `f0f0f0f0${String(i).padStart(4, '0')}`;
    fleet.handle('svc/fleet/me', presence('me', { instance }));
    fleet.handle('svc/fleet/me', presence('me', { instance, online: false }));
  }
  t.ok(lines.length <= 2, `${lines.length} lines for 400 forged messages`);
});
