// GET /{service_id}/events (the dashboard's live feed) over a real socket, and the dashboard's
// static files at `/` next to the API's JSON 404s.
import t from 'tap';
import { dashboardDir } from '../../src/api/dashboard.js';
import { startApp } from '../helpers/app.js';
import { readEvents as readStream, type StreamEvent } from '../helpers/event-stream.js';

const running = await startApp({ emitInterval: '200', history: 'off' });
const base = running.base.replace(/\/[^/]+$/, '');
t.teardown(() => running.close());

/** Reads the stream until `until` says stop (event-stream.ts). */
const readEvents = (until: (events: StreamEvent[]) => boolean, onOpen?: () => Promise<void>) =>
  readStream(`${base}/edge-one/events`, until, onOpen);

t.test('a state at once, patches after changes, fresh state every interval', async (t) => {
  const { res, events } = await readEvents(
    (ev) => ev.some((e) => e.event === 'patch') && ev.filter((e) => e.event === 'state').length >= 3,
    async () => {
      const r = await fetch(`${base}/edge-one/blocks/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'Probe', type: 'TempSensorMock', data: { setting: 21 } }),
      });
      t.equal(r.status, 201);
    },
  );
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  t.equal(events[0]!.event, 'state', 'the first event is a full state');
  t.equal(events[0]!.data.status.online, true);
  t.ok(
    events[0]!.data.blocks.some((b: any) => b.id === 'SysInfo'),
    'with the blocks',
  );
  const patch = events.find((e) => e.event === 'patch')!;
  t.same(
    patch.data.changed.map((b: any) => b.id),
    ['Probe'],
  );
  t.ok(
    events
      .filter((e) => e.event === 'state')
      .at(-1)!
      .data.blocks.some((b: any) => b.id === 'Probe'),
    'later states hold the new block',
  );
});

t.test('deletes arrive as patch.deleted', async (t) => {
  const { events } = await readEvents(
    (ev) => ev.some((e) => e.event === 'patch' && e.data.deleted.length),
    async () =>
      void (await fetch(`${base}/edge-one/blocks/delete`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'Probe' }),
      })),
  );
  t.same(events.find((e) => e.event === 'patch')!.data.deleted, ['Probe']);
});

t.test('the dashboard at / and JSON 404s elsewhere', async (t) => {
  t.ok(dashboardDir(), 'dist/web is built (npm ci runs npm run build:web)');
  const page = await fetch(`${base}/`);
  t.equal(page.status, 200);
  t.match(await page.text(), /<div id="app">/);
  const info = await fetch(`${base}/dashboard.json`);
  t.same(await info.json(), { serviceId: 'edge-one', emitIntervalMs: 200 });
  for (const url of ['/no-such-file.js', '/edge-one/no-such-route']) {
    const res = await fetch(`${base}${url}`);
    t.equal(res.status, 404, url);
    t.match(await res.json(), { statusCode: 404, message: /no route/ });
  }
});
