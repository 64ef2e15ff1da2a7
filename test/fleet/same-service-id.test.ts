// Two controllers with one service id on one broker (a second Pi set up from a copy of the first
// one's SD card): both took the block commands sent to that id and published state and history
// under it, and nothing said so. Now each raises a "service id taken" alert, which resolves when
// the other goes (after the rules' resolveAfter). A presence kept retained from this controller's own last run (a power cut:
// the broker still holds "online") is not another controller. The built CLI, a real Mosquitto.
// tags: slow (two built services and a real Mosquitto)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { freePort, startMosquitto } from '../helpers/mosquitto.js';
import { limit } from '../helpers/limits.js';
import { Recorder, sleep, spawnCli, type Cli } from '../mqtt/fixtures.js';

interface Alert {
  kind: string;
  text: string;
}

async function activeAlerts(origin: string): Promise<Alert[]> {
  const res = await fetch(`${origin}/ferm-1/system/status`);
  const body = (await res.json()) as { alerts: { list: Alert[] } };
  return body.alerts.list;
}

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + limit(ms);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

t.test('two controllers with one service id on one broker each say so', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  // What a power cut leaves: the broker holds this id's presence "online", from a run that is gone.
  await bus.publish(
    'svc/fleet/ferm-1',
    JSON.stringify({
      serviceId: 'ferm-1',
      online: true,
      version: '0.1.0',
      dashboardUrl: null,
      instance: 'a0a0a0a0a0a0',
    }),
    true,
  );

  const start = async (name: string): Promise<{ cli: Cli; origin: string }> => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), `edgeblocks-twin-${name}-`));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const cli = await spawnCli(
      [
        ...['--service-id', 'ferm-1', '--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir],
        ...['--hardware', 'sim', '--mqtt-url', broker.url, '--public-url', `http://${name}.local:${port}/`],
      ],
      t,
      30_000,
    );
    t.teardown(() => void cli.child.kill('SIGKILL'));
    return { cli, origin: `http://127.0.0.1:${port}` };
  };

  const first = await start('first');
  // Long enough for the retained presence to arrive and be judged.
  await sleep(limit(2000));
  t.same(
    (await activeAlerts(first.origin)).filter((a) => a.kind === 'service-id-taken'),
    [],
    'its own last run, retained on the broker, is not another controller',
  );

  const second = await start('second');
  const taken = async (origin: string) => (await activeAlerts(origin)).find((a) => a.kind === 'service-id-taken');
  await until('the first controller to alert', async () => (await taken(first.origin)) !== undefined);
  await until('the second controller to alert', async () => (await taken(second.origin)) !== undefined);
  t.match((await taken(first.origin))!.text, /service id "ferm-1" \(its dashboard: http:\/\/second\.local:\d+\/\)/);
  t.match((await taken(second.origin))!.text, /service id "ferm-1" \(its dashboard: http:\/\/first\.local:\d+\/\)/);
  t.match((await taken(first.origin))!.text, /Give one of them its own serviceId/);

  second.cli.child.kill('SIGTERM');
  await second.cli.exited;
  // The condition clears at once; the alert resolves after the rules' resolveAfter (60 s) of that.
  await until('the condition to clear when the other stops', async () => {
    const res = await fetch(`${first.origin}/ferm-1/system/status`);
    return ((await res.json()) as { fleet: { sameServiceId: unknown } }).fleet.sameServiceId === null;
  });
  t.pass('cleared');
});
