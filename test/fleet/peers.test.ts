// The fleet list (src/fleet/peers.ts): bounded, oldest dropped and counted, offline seen at once,
// its own state and foreign or broken messages left out.
import t from 'tap';
import { FleetPeers } from '../../src/fleet/peers.js';

const state = (id: string, status: Record<string, unknown>, blocks: unknown[] = []) =>
  Buffer.from(
    JSON.stringify({ key: id, type: 'Spark.state', ttl: '60s', data: { status, blocks, relations: [], claims: [] } }),
  );

t.test('bounded: past max the one seen longest ago is dropped, counted and logged', async (t) => {
  const warned: string[] = [];
  let now = 1000;
  const fleet = new FleetPeers({
    serviceId: 'me',
    topicRoot: 'svc',
    max: 3,
    log: { warn: (_f: unknown, m: string) => void warned.push(m) } as any,
    now: () => now,
  });
  for (const id of ['a', 'b', 'c']) (now += 10), fleet.handle(`svc/state/${id}`, state(id, { online: true }));
  now += 10;
  fleet.handle('svc/state/a', state('a', { online: true })); // a is now the most recent
  now += 10;
  fleet.handle('svc/state/d', state('d', { online: true, dashboardUrl: 'http://d.local:5000/', version: '1.2' }));
  t.same(
    fleet.list().map((p) => p.serviceId),
    ['d', 'a', 'c'],
    'b, seen longest ago, was dropped',
  );
  t.match(fleet.status(), { controllers: 3, max: 3, dropped: 1 });
  t.equal(warned.length, 1);
  t.match(warned[0], /more than 3 controllers.*\(b\)/);
  t.match(fleet.list()[0], {
    serviceId: 'd',
    online: true,
    dashboardUrl: 'http://d.local:5000/',
    version: '1.2',
    lastSeen: new Date(now).toISOString(),
  });
});

t.test('own state, patches, junk and other roots are left out; an empty retained state removes', async (t) => {
  const fleet = new FleetPeers({ serviceId: 'me', topicRoot: 'svc', log: { warn: () => undefined } as any });
  fleet.handle('svc/state/me', state('me', { online: true }));
  fleet.handle('svc/state/x/patch', state('x', { online: true }));
  fleet.handle('svc/state/y', Buffer.from('not json'));
  fleet.handle('svc/state/z', state('other-key', { online: true }));
  fleet.handle('svc/state/w', state('w', { online: true, dashboardUrl: 'javascript:alert(1)' }));
  t.same(
    fleet.list().map((p) => [p.serviceId, p.dashboardUrl]),
    [['w', null]],
    'only w, without its non-http link',
  );
  t.equal(fleet.status().ignored, 2);
  fleet.handle('svc/state/w', Buffer.alloc(0));
  t.same(fleet.list(), []);
});

t.test('big states are parsed once per interval, offline messages always', async (t) => {
  let now = 0;
  const fleet = new FleetPeers({
    serviceId: 'me',
    topicRoot: 'svc',
    parseIntervalMs: 15_000,
    log: { warn: () => undefined } as any,
    now: () => now,
  });
  const blocks = Array.from({ length: 200 }, (_, i) => ({
    id: `block ${i}`,
    type: 'TempSensorMock',
    data: { value: i, setting: 20, connected: true },
  }));
  fleet.handle('svc/state/big', state('big', { online: true, version: 'v1' }, blocks));
  now = 5000;
  fleet.handle('svc/state/big', state('big', { online: true, version: 'v2' }, blocks));
  t.match(
    fleet.list()[0],
    { version: 'v1', lastSeen: new Date(5000).toISOString() },
    'not parsed again within the interval, but seen',
  );
  now = 6000;
  fleet.handle('svc/state/big', state('big', { online: false, connection_status: 'DISCONNECTED' }));
  t.match(fleet.list()[0], { online: false }, 'the small offline message is read at once');
});
