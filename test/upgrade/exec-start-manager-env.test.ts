// What the service manager, not the unit, gives a drop-in's ExecStart. (1) DefaultEnvironment= of
// /etc/systemd/system.conf and its system.conf.d/ drop-ins, which systemd gives every service
// below the unit's own settings, was read as empty; it is known from those files and is
// expanded. (2) A name in PassEnvironment= takes its value from systemd's own environment, which
// no file holds: it was read as empty, and is now refused by name. The built CLI as a child
// process on a laid-out root.
// tags: slow (the built CLI, several times)
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';

import { NODE_LINE, put, runOn, unitRoot } from './unit-root.js';

const withDropIn = (t: Test, text: string) => unitRoot(t, { dropIn: text });
const run = (t: Test, root: string, command = 'check') => runOn(t, root, command);

t.test('DefaultEnvironment= of system.conf and its drop-ins is expanded, below the unit’s Environment=', async (t) => {
  const root = withDropIn(
    t,
    `[Service]\nEnvironment=BREWS=/srv/unit\nExecStart=\nExecStart=${NODE_LINE} --data-dir \${CELLAR}/data --config \${BREWS}/eb.json\n`,
  );
  put(
    root,
    'etc/systemd/system.conf',
    '[Manager]\n#DefaultEnvironment=CELLAR=/nowhere\nDefaultEnvironment=BREWS=/srv/manager CELLAR=/srv/first\n',
  );
  // A drop-in of system.conf: read after the file, its assignments added (the later one wins).
  put(root, 'etc/systemd/system.conf.d/10-cellar.conf', '[Manager]\nDefaultEnvironment="CELLAR=/srv/cellar"\n');
  mkdirSync(path.join(root, 'srv/cellar/data'), { recursive: true, mode: 0o700 });
  put(root, 'srv/unit/eb.json', JSON.stringify({ port: 8099 }));
  const res = run(t, root);
  t.equal(res.code, 0, res.err);
  t.notMatch(res.out + res.err, /makes it empty/, 'no variable is said to be empty');
  t.match(res.out, `(${path.join(root, 'srv/unit/eb.json')}) is valid`);
  t.match(res.out, `with the data dir ${path.join(root, 'srv/cellar/data')}`);
});

t.test(
  'a variable PassEnvironment= passes from systemd’s own environment is refused by name, not read as empty',
  async (t) => {
    const root = withDropIn(
      t,
      `[Service]\nPassEnvironment=BREWHOME\nExecStart=\nExecStart=${NODE_LINE} --data-dir \${BREWHOME}/data\n`,
    );
    // Set in DefaultEnvironment= too: what PassEnvironment= passes is still the manager's own, not known here.
    put(root, 'etc/systemd/system.conf', '[Manager]\nDefaultEnvironment=BREWHOME=/srv\n');
    const res = run(t, root);
    t.equal(res.code, 2, res.out);
    t.match(
      res.err,
      /override\.conf uses \$BREWHOME, which PassEnvironment= \(\/etc\/systemd\/system\/edgeblocks\.service\.d\/override\.conf\) passes from systemd's own environment/,
    );
    t.notMatch(res.out + res.err, /makes it empty/);
    const doctor = run(t, root, 'doctor');
    t.equal(doctor.code, 2, doctor.out);
    t.match(doctor.err, /uses \$BREWHOME, which PassEnvironment=/);

    // The unit's own Environment= wins over what PassEnvironment= passes, as in systemd: known.
    const set = withDropIn(
      t,
      `[Service]\nPassEnvironment=BREWHOME\nEnvironment=BREWHOME=/srv\nExecStart=\nExecStart=${NODE_LINE} --data-dir \${BREWHOME}/data\n`,
    );
    mkdirSync(path.join(set, 'srv/data'), { recursive: true, mode: 0o700 });
    const known = run(t, set);
    t.equal(known.code, 0, known.err);
    t.match(known.out, `with the data dir ${path.join(set, 'srv/data')}`);
  },
);

t.test('an EDGEBLOCKS_ variable of DefaultEnvironment= is the service’s, below the unit’s Environment=', async (t) => {
  // systemd gives it to every service: check takes it, refused naming system.conf.
  const root = unitRoot(t);
  put(root, 'etc/systemd/system.conf', '[Manager]\nDefaultEnvironment=EDGEBLOCKS_PORT=99999\n');
  const refused = run(t, root);
  t.equal(refused.code, 2, refused.out);
  t.match(refused.err, /99999.*the service gets EDGEBLOCKS_PORT from \/etc\/systemd\/system\.conf/);
  // A drop-in of system.conf, read after it: its value wins.
  put(root, 'etc/systemd/system.conf.d/50-port.conf', '[Manager]\nDefaultEnvironment=EDGEBLOCKS_PORT=99998\n');
  const later = run(t, root);
  t.equal(later.code, 2, later.out);
  t.match(later.err, /99998.*EDGEBLOCKS_PORT from \/etc\/systemd\/system\.conf\.d\/50-port\.conf/);

  // The unit's Environment= wins over it; UnsetEnvironment= takes it out: the service's port is then valid.
  const drop = 'etc/systemd/system/edgeblocks.service.d/override.conf';
  put(root, drop, '[Service]\nEnvironment=EDGEBLOCKS_PORT=8099\n');
  const unit = run(t, root);
  t.equal(unit.code, 0, unit.err);
  put(root, drop, '[Service]\nUnsetEnvironment=EDGEBLOCKS_PORT\n');
  const unset = run(t, root);
  t.equal(unset.code, 0, unset.err);

  // Its EDGEBLOCKS_CONFIG is the file a drop-in's ExecStart with no --config reads.
  const other = unitRoot(t, {
    dropIn: `[Service]\nExecStart=\nExecStart=${NODE_LINE} --data-dir /var/lib/edgeblocks\n`,
  });
  put(other, 'etc/systemd/system.conf', '[Manager]\nDefaultEnvironment=EDGEBLOCKS_CONFIG=/srv/eb.json\n');
  put(other, 'srv/eb.json', JSON.stringify({ port: 8099 }));
  const file = run(t, other);
  t.equal(file.code, 0, file.err);
  t.match(file.out, `(${path.join(other, 'srv/eb.json')}) is valid`);
  t.notMatch(file.err, /reads no config file/);
});
