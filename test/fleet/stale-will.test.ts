// A power cut: the broker still holds the lost run's links until their keepalive runs out, and
// then sends their last wills, retained: "offline" on the fleet presence topic (with the lost
// run's id) and on Home Assistant's availability topic. Those came after the new run's retained
// "online" and replaced it: the other controllers listed this one offline and Home Assistant
// showed its entities unavailable until its next reconnect, with the controller running. The
// presence link now hears its own topic and says "online" again when a "down" message comes
// while the service is up. A real Mosquitto; the lost run is two raw clients with those wills.
// tags: slow (a real Mosquitto)
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, sleep } from '../mqtt/fixtures.js';

const FLEET = 'svc/fleet/ferm-1';
const AVAILABILITY = 'svc/ha/ferm-1/availability';
const OLD_RUN = 'a0a0a0a0a0a0';
const oldPresence = (online: boolean) =>
  JSON.stringify({ serviceId: 'ferm-1', online, version: '0.1.0', dashboardUrl: null, instance: OLD_RUN });

/** What a fresh subscriber gets from the broker now: the retained message of `topic` (one is always held here). */
async function retained(url: string, topic: string): Promise<string> {
  const reader = await Recorder.connect(url);
  try {
    await reader.subscribe(topic);
    const got = await reader.waitFor((m) => m.topic === topic && m.retain, `the retained message of ${topic}`);
    return got.payload.toString();
  } finally {
    await reader.end();
  }
}

t.test("the lost run's last wills do not leave the running controller offline", async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  // The lost run's two presence links, still held by the broker after the power cut.
  const lost = await Promise.all(
    [
      { topic: FLEET, payload: oldPresence(false) },
      { topic: AVAILABILITY, payload: 'offline' },
    ].map((will) =>
      Recorder.connect(broker.url, { will: { ...will, retain: true, qos: 0 }, keepalive: 600, reconnectPeriod: 0 }),
    ),
  );
  await lost[0].publish(FLEET, oldPresence(true), true);
  await lost[1].publish(AVAILABILITY, 'online', true);

  const app = await startApp({
    serviceId: 'ferm-1',
    mqttUrl: broker.url,
    homeAssistant: 'true',
    emitInterval: '200',
  });
  t.teardown(app.close);
  const watcher = await Recorder.connect(broker.url);
  t.teardown(() => watcher.end());
  await watcher.subscribe(FLEET, AVAILABILITY);
  const running = await watcher.waitFor(
    (m) => m.topic === FLEET && m.json().online === true && m.json().instance !== OLD_RUN,
    'the new run online',
  );
  const instance = running.json().instance as string;
  await watcher.waitFor((m) => m.topic === AVAILABILITY && m.payload.toString() === 'online', 'available');
  await sleep(300);

  // The broker gives up on the lost run's links: their wills go out, retained.
  const from = watcher.messages.length;
  for (const r of lost) r.client.stream.destroy();
  const will = await watcher.waitFor(
    (m) => m.topic === FLEET && m.json().online === false && m.json().instance === OLD_RUN,
    "the lost run's will",
    5000,
    from,
  );
  const availabilityWill = await watcher.waitFor(
    (m) => m.topic === AVAILABILITY && m.payload.toString() === 'offline',
    "the lost run's availability will",
    5000,
    from,
  );
  // The running one says online again after each will (at once, or within the reassert's 1 s
  // limit when it said so less than a second before): waited for, not slept for.
  await watcher.waitFor(
    (m) => m.topic === FLEET && m.json().online === true && m.json().instance === instance,
    'the running one online again after the will',
    5000,
    watcher.messages.indexOf(will) + 1,
  );
  await watcher.waitFor(
    (m) => m.topic === AVAILABILITY && m.payload.toString() === 'online',
    'available again after the will',
    5000,
    watcher.messages.indexOf(availabilityWill) + 1,
  );
  // A window for a flood of "online" to show (counted below).
  await sleep(1000);

  const fleet = await retained(broker.url, FLEET);
  t.match(JSON.parse(fleet), { online: true, instance }, 'the broker holds the running one online');
  t.equal(await retained(broker.url, AVAILABILITY), 'online', 'Home Assistant sees it available');
  const again = watcher.on(FLEET, from).filter((m) => m.json().online === true);
  t.ok(again.length >= 1 && again.length <= 2, `said once more (${again.length}), not a flood`);
});
