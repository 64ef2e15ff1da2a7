// `sudo edgeblocks doctor` checks the configuration the service runs with: sudo gives the doctor
// none of the service's environment, so it reads the EDGEBLOCKS_ variables the unit and its
// drop-ins set (`systemctl edit edgeblocks`), as the installer's check does. Here a drop-in moves
// the service to another port and service id: the doctor must ask that service, not port 5000.
// Its own environment still wins (a variable given on purpose), and a value the service would
// refuse names the file that sets it.
// tags: slow (the built CLI, twice)
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT, startCli } from '../helpers/cli.js';
import { doctor, sectionNamed, setUp, type Section } from '../helpers/doctor.js';

const SIM = { w1: [[{ name: 'fridge', type: 'DS18B20', temperature: 4 }]] };
const DROP_IN = '/etc/systemd/system/edgeblocks.service.d/override.conf';

/** The unit, its drop-in `dropIn` and the config file its ExecStart names (without it the service cannot start). */
function unit(root: string, dropIn: string): void {
  mkdirSync(join(root, 'etc/systemd/system/edgeblocks.service.d'), { recursive: true });
  copyFileSync(join(ROOT, 'systemd/edgeblocks.service'), join(root, 'etc/systemd/system/edgeblocks.service'));
  writeFileSync(join(root, DROP_IN), dropIn);
  mkdirSync(join(root, 'etc/edgeblocks'), { recursive: true });
  writeFileSync(join(root, 'etc/edgeblocks/config.json'), '{}');
}

t.test("the doctor asks the service where the unit's drop-in puts it", async (t) => {
  const s = setUp(t, 'pi4', SIM);
  const service = await startCli(
    ['--hardware', 'sim', '--sim-config', s.simConfig, '--data-dir', s.data, '--mqtt-port', '0'],
    { EDGEBLOCKS_HOST: '127.0.0.1', EDGEBLOCKS_SERVICE_ID: 'cellar' },
    t,
  );
  unit(s.root, `[Service]\nEnvironment=EDGEBLOCKS_PORT=${service.port} "EDGEBLOCKS_SERVICE_ID=cellar"\n`);

  const res = doctor([...s.args, '--json'], { EDGEBLOCKS_PORT: undefined, EDGEBLOCKS_SERVICE_ID: undefined });
  t.equal(res.code, 0, res.stderr);
  const report = JSON.parse(res.stdout) as { sections: Section[] };
  const view = sectionNamed(report.sections, /^Service$/);
  t.match(
    Object.fromEntries(view.facts),
    { api: `http://127.0.0.1:${service.port}/cellar/system/status` },
    `the service's own port and id (${JSON.stringify(view.findings)})`,
  );
  t.match(
    Object.fromEntries(sectionNamed(report.sections, /^System$/).facts),
    { 'service environment': new RegExp(`EDGEBLOCKS_PORT, EDGEBLOCKS_SERVICE_ID \\(${DROP_IN}\\)`) },
    'the report says which settings came from the unit',
  );

  // A variable given to the doctor on purpose wins over the unit's.
  const mine = doctor([...s.args, '--json'], { EDGEBLOCKS_PORT: '1', EDGEBLOCKS_SERVICE_ID: undefined });
  t.match(sectionNamed(JSON.parse(mine.stdout).sections, /^Service$/).findings, [
    {},
    { verdict: 'warn', text: /does not answer on http:\/\/127\.0\.0\.1:1\/cellar\// },
  ]);
});

t.test('a value in a drop-in the service would refuse: one line naming it and its file', async (t) => {
  const s = setUp(t, 'pi4', SIM);
  unit(s.root, '[Service]\nEnvironment=EDGEBLOCKS_EMIT_INTERVAL=soon\n');
  const res = doctor(s.args, { EDGEBLOCKS_EMIT_INTERVAL: undefined });
  t.equal(res.code, 2, res.stdout);
  t.match(
    res.stderr.trim(),
    new RegExp(`^edgeblocks doctor: configuration error: emitInterval \\(env EDGEBLOCKS_EMIT_INTERVAL\\).*${DROP_IN}`),
  );
  t.equal(res.stderr.trim().split('\n').length, 1, 'one line');
});
