// Issue 44 item 3: restarts are not events. The built service on the emulated hardware, alert
// rules tight enough that anything a start does would show within seconds: a SIGTERM and a
// start with every device present sends nothing on any channel; the first sensor alert after
// the start fires its `after` from the unplug, once (no flap counted from the start), and its
// "Back to normal after" counts from the unplug.
// tags: slow (the built service stopped and started, every channel watched)
import mqtt from 'mqtt';
import t from 'tap';
import { killAndWait } from '../helpers/children.js';
import { limit } from '../helpers/limits.js';
import { getJson } from './http.js';
import { HttpReceiver, until } from './receivers.js';
import { beerSensor, plug, sensorValue, startService, writeConfig } from './sim-service.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seconds in an alert text's "after 1m 5s". */
function seconds(text: string): number {
  const m = /after ((?:\d+[dhm] )*\d+s)/.exec(text);
  if (!m) throw new Error(`no duration in '${text}'`);
  let s = 0;
  for (const part of m[1]!.split(' '))
    s += Number(part.slice(0, -1)) * { d: 86400, h: 3600, m: 60, s: 1 }[part.at(-1)!]!;
  return s;
}

t.test(
  'a restart with every device present sends nothing; the first alert after it counts from its cause',
  async (t) => {
    const http = new HttpReceiver();
    await http.start();
    t.teardown(() => http.stop());
    const AFTER_S = 5;
    const cfg = writeConfig({
      webhook: { url: http.url('/hook') },
      ntfy: { url: http.url('/ntfy/brewery') },
      checkIntervalMs: 100,
      // A null for 5 s fires (what a start did is over by then, a loaded machine's late reads
      // are not); a clear of less than 15 s is a flap of the same alert.
      rules: { sensorNull: { after: AFTER_S }, resolveAfter: 15, blocks: {} },
    });
    let svc = await startService(cfg, t);
    const sensor = await beerSensor(svc.api, limit(15000));
    const blocks = (await (await fetch(`${svc.api}/blocks/all/read`, { method: 'POST' })).json()) as any[];
    t.ok(
      blocks.some((b) => b.type === 'DS2408') && blocks.some((b) => b.type === 'DS2413'),
      'the IO modules are blocks too',
    );
    await sleep(limit(2000));
    t.same(http.got, [], 'nothing sent while running with every device present');

    // SIGTERM and start, twice: each start is looked at for the seconds in which its artefacts came.
    for (const round of [1, 2]) {
      await killAndWait(svc.child, 'SIGTERM');
      svc = await startService(cfg, t);
      // The HTTP port is up before the broker (the start order): wait for the broker's port.
      const brokerPort = await until(
        'the broker port',
        limit(10000),
        async () => (await getJson(`${svc.api}/system/status`)).mqtt.brokerPort ?? undefined,
      );
      const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${brokerPort}`);
      const lists: any[] = [];
      client.on('message', (_topic, payload) => lists.push(JSON.parse(payload.toString())));
      await client.subscribeAsync('svc/alerts/#');
      await until('every sensor reading again', limit(15000), async () => {
        const all = (await (await fetch(`${svc.api}/blocks/all/read`, { method: 'POST' })).json()) as any[];
        const sensors = all.filter((b) => b.type === 'TempSensorOneWire');
        return sensors.length > 0 && sensors.every((b) => b.data.value.value !== null);
      });
      // The start-up artefacts came within a second of the start; a few more to be sure.
      await sleep(limit(4000));
      const a = await getJson(`${svc.api}/alerts`);
      t.same(
        http.got.map((r) => `${r.path} ${r.body.slice(0, 120)}`),
        [],
        `round ${round}: nothing sent to the webhook or ntfy after the restart`,
      );
      t.same(
        a.history.filter((h: any) => h.event === 'fired').map((h: any) => h.text),
        [],
        `round ${round}: nothing fired`,
      );
      t.equal(a.active.length, 0, `round ${round}: no active alert (dashboard and status)`);
      t.ok(lists.length >= 1, `round ${round}: the retained MQTT alert list was read`);
      t.same(
        lists.flatMap((l) => l.active ?? []),
        [],
        `round ${round}: the MQTT alert list stayed empty`,
      );
      await client.endAsync();
    }

    // The first sensor alert after the start: its time, count and duration are the unplug's.
    await sleep(limit(1000));
    await plug(svc.api, false);
    // The condition begins when the value goes null (the sensor rides through 2 s without a reading).
    // When that was is known between the start of the last read that still had a value and the end
    // of the first that had none: a read answered late on a busy machine widens the bracket, it
    // does not move the times checked below.
    let hadValueAt = Date.now();
    await until(
      'the sensor reads null',
      limit(8000),
      async () => {
        const asked = Date.now();
        if ((await sensorValue(svc.api, sensor.id)) === null) return true;
        hadValueAt = asked;
        return false;
      },
      50,
    );
    const nullAt = Date.now();
    const fired = await until('the sensor alert', limit(15000), () =>
      http.got.find((r) => r.path === '/hook' && JSON.parse(r.body).event === 'fired'),
    );
    const firedMessage = JSON.parse(fired.body);
    t.equal(firedMessage.key, `sensor-null:${sensor.nid}`);
    const firedAfter = Date.parse(firedMessage.at) - hadValueAt;
    t.ok(
      firedAfter >= AFTER_S * 1000 - 500,
      `fired its ${AFTER_S} s after the value went null, not at once (${firedAfter} ms after the last read with a value)`,
    );
    t.equal(firedMessage.count, 1, 'went bad once: the start is not a flap');
    t.notMatch(firedMessage.message, /went bad/, 'no flap count in the text');
    await sleep(limit(2000));
    await plug(svc.api, true);
    const resolved = await until('the resolve', limit(60000), () =>
      http.got.find((r) => r.path === '/hook' && JSON.parse(r.body).event === 'resolved'),
    );
    const text = JSON.parse(resolved.body).message as string;
    const resolvedAt = Date.parse(JSON.parse(resolved.body).at);
    const tookAtMost = (resolvedAt - hadValueAt) / 1000;
    const tookAtLeast = (resolvedAt - nullAt) / 1000;
    t.ok(
      seconds(text) >= tookAtLeast - 2 && seconds(text) <= tookAtMost + 2,
      `"${text}" counts from when the value went null (${tookAtLeast.toFixed(1)}-${tookAtMost.toFixed(1)} s before the resolve)`,
    );
    t.equal(http.json('/hook').length, 2, 'the webhook got the fire and the resolve, nothing else');
  },
);
