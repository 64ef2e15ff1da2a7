// Issue 29.5-7: three controllers (the built CLI, --hardware sim) on one real Mosquitto and one
// real VictoriaMetrics. Each is addressed by its service id (state topic, REST prefix, block API
// messages, history fields), the MQTT block API of one never touches another, Home Assistant
// unique ids do not collide, each controller lists the other two (GET /{id}/fleet) with a
// working dashboard link, the Brewblox UI's reader takes each state message as a Spark service,
// and one controller's history API graphs the fields of another, each point stored once.
// tags: slow (three built services, a real Mosquitto and VictoriaMetrics)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { freePort, startMosquitto } from '../helpers/mosquitto.js';
import { startVictoria } from '../helpers/victoria.js';
import { limit } from '../helpers/limits.js';
import { Recorder, sleep, spawnCli, type Cli } from '../mqtt/fixtures.js';
import { uiRead } from '../mqtt/ui-reader.js';

const IDS = ['ferm-1', 'ferm-2', 'ferm-3'];

async function eventually<T>(
  what: string,
  get: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 15000,
): Promise<T> {
  const deadline = Date.now() + limit(timeoutMs);
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v).slice(0, 500)}`);
    await sleep(200);
  }
}

t.test('three controllers, one Mosquitto, one VictoriaMetrics', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  await bus.subscribe('svc/state/+', 'svc/history/+', 'homeassistant/#');

  const ctl: Record<string, { cli: Cli; origin: string; base: string }> = {};
  for (const id of IDS) {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), `edgeblocks-fleet-${id}-`));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const cli = await spawnCli(
      [
        '--service-id',
        id,
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--data-dir',
        dataDir,
        '--hardware',
        'sim',
        '--mqtt-url',
        broker.url,
        '--history-url',
        vm.url,
        '--history-ingest',
        'own',
        '--emit-interval',
        '500',
        '--home-assistant',
        'true',
      ],
      t,
      30000,
    );
    const origin = `http://127.0.0.1:${port}`;
    ctl[id] = { cli, origin, base: `${origin}/${id}` };
  }
  const post = async (url: string, body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  for (const id of IDS)
    t.equal(
      (
        await post(`${ctl[id]!.base}/blocks/create`, {
          id: 'Beer Sensor',
          type: 'TempSensorMock',
          data: { setting: 10 + IDS.indexOf(id) },
        })
      ).status,
      201,
      `a block on ${id}`,
    );

  await t.test('addressed by service id: state, REST, block API', async (t) => {
    for (const id of IDS) {
      const state = await bus.waitFor(
        (m) => m.topic === `svc/state/${id}` && m.json().data.blocks.some((b: any) => b.id === 'Beer Sensor'),
        `the state of ${id}`,
        10000,
      );
      const view = uiRead(id, state.json());
      t.match(
        view,
        { desc: 'Synchronized', page: 'blocks', serviceName: id },
        `the Brewblox UI takes ${id}'s state message as a synchronized Spark service`,
      );
      t.equal(
        uiRead(IDS.find((o) => o !== id)!, state.json()),
        null,
        `the UI does not take ${id}'s state as another service's`,
      );
      t.equal(
        (await fetch(`${ctl[IDS.find((o) => o !== id)!]!.origin}/${id}/blocks/all/read`, { method: 'POST' })).status,
        404,
        `another controller does not answer for /${id}`,
      );
    }
    const before = bus.messages.length;
    await bus.publish(
      'svc/controller/blocks/create',
      JSON.stringify({ serviceId: 'ferm-2', id: 'Via Bus', type: 'TempSensorMock', data: { setting: 4 } }),
    );
    await bus.publish(
      'svc/spark/blocks/write',
      JSON.stringify({ serviceId: 'ferm-3', id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 33 } }),
    );
    await bus.waitFor(
      (m) =>
        m.topic === 'svc/state/ferm-3' &&
        m.json().data.blocks.some((b: any) => b.id === 'Beer Sensor' && b.data.setting?.value === 33),
      'the write on ferm-3',
      10000,
      before,
    );
    const blocks = async (id: string) =>
      (await post(`${ctl[id]!.base}/blocks/all/read`, {})).body as Array<{ id: string; data: any }>;
    await eventually(
      'the bus block on ferm-2',
      () => blocks('ferm-2'),
      (b) => b.some((x) => x.id === 'Via Bus'),
    );
    for (const id of ['ferm-1', 'ferm-3'])
      t.notOk(
        (await blocks(id)).some((b) => b.id === 'Via Bus'),
        `${id} did not take ferm-2's block`,
      );
    for (const id of ['ferm-1', 'ferm-2'])
      t.equal(
        (await blocks(id)).find((b) => b.id === 'Beer Sensor')!.data.setting.value,
        10 + IDS.indexOf(id),
        `${id}'s Beer Sensor is untouched by ferm-3's write`,
      );
  });

  await t.test('Home Assistant unique ids do not collide', async (t) => {
    await bus.waitFor(
      (m) => m.topic.startsWith('homeassistant/') && m.topic.includes('edgeblocks_ferm-3'),
      'discovery of ferm-3',
      10000,
    );
    await sleep(500);
    const configs = bus.messages.filter(
      (m) => m.topic.startsWith('homeassistant/') && m.topic.endsWith('/config') && m.payload.length,
    );
    const byTopic = new Map(configs.map((m) => [m.topic, m.json()]));
    const ids = [...byTopic.values()].map((c) => c.unique_id as string);
    for (const id of IDS)
      t.ok(
        ids.some((u) => u.startsWith(`edgeblocks_${id}_`)),
        `entities of ${id}`,
      );
    t.equal(new Set(ids).size, ids.length, `${ids.length} unique ids, none twice`);
    t.equal(
      new Set([...byTopic.values()].map((c) => c.device.identifiers[0])).size,
      IDS.length,
      'one Home Assistant device per controller',
    );
  });

  await t.test('each controller lists the others, with a working dashboard link', async (t) => {
    for (const id of IDS) {
      const others = IDS.filter((o) => o !== id);
      const fleet = await eventually(
        `${id}'s fleet`,
        async () => (await (await fetch(`${ctl[id]!.base}/fleet`)).json()) as any,
        (f) => others.every((o) => f.controllers.some((c: any) => c.serviceId === o && c.online)),
      );
      t.same(
        fleet.controllers.map((c: any) => c.serviceId).sort(),
        others,
        `${id} lists ${others.join(' and ')}, not itself`,
      );
      for (const c of fleet.controllers) {
        t.equal(c.dashboardUrl, `${ctl[c.serviceId]!.origin}/`, `${c.serviceId}'s dashboard link`);
        const page = await fetch(c.dashboardUrl);
        t.equal(page.status, 200);
        t.match(await page.text(), /<html/i, 'the link opens a dashboard');
      }
    }
  });

  await t.test('one history: any controller graphs the fields of any other, each point stored once', async (t) => {
    const field = 'ferm-3/Beer Sensor/value[degC]';
    const fields = await eventually(
      'the fields of all three in ferm-1',
      async () =>
        (await post(`${ctl['ferm-1']!.origin}/history/timeseries/fields`, { duration: '1h' })).body as string[],
      (f) => IDS.every((id) => f.includes(`${id}/Beer Sensor/value[degC]`)),
      20000,
    );
    t.ok(fields.includes(field));
    const ranges = await eventually(
      `a range of ${field} from ferm-1`,
      async () =>
        (await post(`${ctl['ferm-1']!.origin}/history/timeseries/ranges`, { fields: [field], duration: '10m' }))
          .body as any[],
      (r) => r.length > 0,
    );
    t.equal(ranges[0]?.metric.__name__, field, "ferm-1 answers a range of ferm-3's field");
    t.ok(ranges[0].values.length > 0, 'with values');
    // Stored once: VictoriaMetrics holds no more points of ferm-2's field than ferm-2 sent.
    const since = Math.floor(Date.now() / 1000) - 600;
    const sent = bus.messages.filter((m) => m.topic === 'svc/history/ferm-2' && m.json().data['Beer Sensor']).length;
    const exported = await (
      await fetch(
        `${vm.url}/api/v1/export?match[]=${encodeURIComponent('{__name__="ferm-2/Beer Sensor/value[degC]"}')}&start=${since}`,
      )
    ).text();
    const points = exported
      .trim()
      .split('\n')
      .filter(Boolean)
      .reduce((n, line) => n + JSON.parse(line).values.length, 0);
    t.ok(points > 0 && points <= sent + 2, `${points} points stored for ${sent} messages sent`);
  });

  await t.test('a controller that stops shows offline in the others', async (t) => {
    ctl['ferm-3']!.cli.child.kill('SIGTERM');
    await ctl['ferm-3']!.cli.exited;
    const fleet = await eventually(
      "ferm-3 offline in ferm-1's list",
      async () => (await (await fetch(`${ctl['ferm-1']!.base}/fleet`)).json()) as any,
      (f) => f.controllers.some((c: any) => c.serviceId === 'ferm-3' && c.online === false),
    );
    t.match(
      fleet.controllers.find((c: any) => c.serviceId === 'ferm-2'),
      { online: true },
    );
  });
});
