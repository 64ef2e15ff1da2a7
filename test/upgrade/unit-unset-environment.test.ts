// What the service gets when its unit takes something out. (1) UnsetEnvironment= of a drop-in
// (systemd.exec(5)) removes a variable from what the service gets, as systemd's last step: over
// Environment= whatever file and order set it, and before ExecStart's variables are expanded; a
// NAME=VALUE only that assignment; an empty one clearing the list. Check and the doctor still
// took the unit's EDGEBLOCKS_CONFIG (refused as a second config file) and its other variables.
// (2) A drop-in's ExecStart with neither --config nor EDGEBLOCKS_CONFIG: the service reads no
// config file (its defaults), but the check read /etc/edgeblocks/config.json and refused what the
// service never reads. (3) So with no --data-dir there: the service's data dir is its file's
// dataDir, or its default ./data, found from its WorkingDirectory= (/var/lib/edgeblocks/data), but
// the check took /var/lib/edgeblocks; (4) with WorkingDirectory=~ it took <root>/data, where a
// relative --data-dir there was refused as not worked out; (5) given --data-dir, it read
// /etc/edgeblocks/config.json all the same. The built CLI as a child process on a laid-out root.
// tags: slow (the built CLI, several times)
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';

import { NODE_LINE, put, runOn, unitRoot } from './unit-root.js';

const DROP_INS = 'etc/systemd/system/edgeblocks.service.d';
const check = (t: Test, root: string) => runOn(t, root, 'check');

t.test('UnsetEnvironment=EDGEBLOCKS_CONFIG in a drop-in: the unit’s --config alone is read', async (t) => {
  const root = unitRoot(t, { dropIn: '[Service]\nEnvironment=EDGEBLOCKS_CONFIG=/etc/edgeblocks/other.json\n' });
  // In a file read before override.conf, whose Environment= it still takes out (systemd's last
  // step, not in the order of the files); so is one after it in its own file.
  put(
    root,
    `${DROP_INS}/50-unset.conf`,
    '[Service]\nUnsetEnvironment=EDGEBLOCKS_CONFIG\nEnvironment=EDGEBLOCKS_CONFIG=/etc/edgeblocks/third.json\n',
  );
  for (const command of ['check', 'doctor']) {
    const res = runOn(t, root, command);
    t.notMatch(res.err, /EDGEBLOCKS_CONFIG/, `${command}: the variable is not the service's`);
    if (command === 'check') {
      t.equal(res.code, 0, res.err);
      t.match(res.out, `(${path.join(root, 'etc/edgeblocks/config.json')}) is valid`);
    }
  }

  // An empty UnsetEnvironment= after it clears the list: the variable is the service's again, and refused.
  put(root, `${DROP_INS}/60-again.conf`, '[Service]\nUnsetEnvironment=\n');
  const again = check(t, root);
  t.equal(again.code, 2, again.out);
  t.match(again.err, /EDGEBLOCKS_CONFIG is "\/etc\/edgeblocks\/other\.json"/);
});

t.test('UnsetEnvironment= NAME=VALUE takes out that assignment only', async (t) => {
  const root = unitRoot(t, {
    dropIn: '[Service]\nEnvironment=EDGEBLOCKS_PORT=99999\nUnsetEnvironment=EDGEBLOCKS_PORT=99999\n',
  });
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  put(
    root,
    `${DROP_INS}/override.conf`,
    '[Service]\nEnvironment=EDGEBLOCKS_PORT=99999\nUnsetEnvironment=EDGEBLOCKS_PORT=5000\n',
  );
  const kept = check(t, root);
  t.equal(kept.code, 2, kept.out);
  t.match(kept.err, /port.*99999.*override\.conf/);
});

t.test('UnsetEnvironment= words have their specifiers expanded, as systemd does', async (t) => {
  // %E/%N/other.json is /etc/edgeblocks/other.json: the drop-in's EDGEBLOCKS_CONFIG is taken out.
  const root = unitRoot(t, {
    dropIn:
      '[Service]\nEnvironment=EDGEBLOCKS_CONFIG=/etc/edgeblocks/other.json\nUnsetEnvironment=EDGEBLOCKS_CONFIG=%E/%N/other.json\n',
  });
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  t.notMatch(res.err, /EDGEBLOCKS_CONFIG/);
  // %S/%p is /var/lib/edgeblocks, the $STATE_DIRECTORY systemd sets: taken out, empty in ExecStart.
  const line = unitRoot(t, {
    dropIn: `[Service]\nUnsetEnvironment=STATE_DIRECTORY=%S/%p\nExecStart=\nExecStart=${NODE_LINE} --config /etc/edgeblocks/config.json --data-dir /brew\${STATE_DIRECTORY}\n`,
  });
  mkdirSync(path.join(line, 'brew'), { mode: 0o700 });
  const expanded = check(t, line);
  t.equal(expanded.code, 0, expanded.err);
  t.match(expanded.out, `with the data dir ${path.join(line, 'brew')}\n`);
  t.match(expanded.err, /uses \$STATE_DIRECTORY, which no Environment= .* systemd makes it empty/);
});

t.test('Environment= and EnvironmentFile= have their specifiers expanded, as systemd does', async (t) => {
  // %S/%N/brew is /var/lib/edgeblocks/brew: the data dir of a drop-in ExecStart with no --data-dir.
  const root = unitRoot(t, {
    dropIn: `[Service]\nEnvironment=EDGEBLOCKS_DATA_DIR=%S/%N/brew\nExecStart=\nExecStart=${NODE_LINE} --config /etc/edgeblocks/config.json\n`,
  });
  mkdirSync(path.join(root, 'var/lib/edgeblocks/brew'), { mode: 0o700 });
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `with the data dir ${path.join(root, 'var/lib/edgeblocks/brew')}\n`);
  // EnvironmentFile=%E/%N/env is /etc/edgeblocks/env: its variable is read, and refused naming it.
  put(root, 'etc/edgeblocks/env', 'EDGEBLOCKS_PORT=99999\n');
  put(root, `${DROP_INS}/50-file.conf`, '[Service]\nEnvironmentFile=%E/%N/env\n');
  const file = check(t, root);
  t.equal(file.code, 2, file.out);
  t.match(file.err, /99999.*EDGEBLOCKS_PORT from \/etc\/edgeblocks\/env/);
});

t.test('a variable UnsetEnvironment= takes out is empty in ExecStart, as systemd expands it', async (t) => {
  // $BREWS of Environment=, and $STATE_DIRECTORY systemd sets for StateDirectory=: both taken out.
  const root = unitRoot(t, {
    dropIn: `[Service]\nEnvironment=BREWS=/srv\nUnsetEnvironment=BREWS STATE_DIRECTORY\nExecStart=\nExecStart=${NODE_LINE} --config /etc/edgeblocks/config.json --data-dir \${BREWS}/brew\${STATE_DIRECTORY}\n`,
  });
  mkdirSync(path.join(root, 'brew'), { mode: 0o700 });
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `with the data dir ${path.join(root, 'brew')}`);
  t.match(res.err, /uses \$BREWS, which no Environment= .* systemd makes it empty/);
  t.match(res.err, /uses \$STATE_DIRECTORY, which no Environment= .* systemd makes it empty/);
});

t.test('a drop-in ExecStart with neither --config nor EDGEBLOCKS_CONFIG: no config file, as the service', async (t) => {
  // The service started so reads no file: the file's refused value never stops it.
  const root = unitRoot(t, {
    dropIn: `[Service]\nExecStart=\nExecStart=${NODE_LINE} --data-dir /var/lib/edgeblocks --port 8099\n`,
    config: JSON.stringify({ emitInterval: 'soon' }),
  });
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  t.match(res.out, /the configuration is valid, with the data dir/);
  t.notMatch(res.err, /emitInterval/);
  t.match(
    res.err,
    /warning: the ExecStart in \/etc\/systemd\/system\/edgeblocks\.service\.d\/override\.conf gives no --config, nor the unit EDGEBLOCKS_CONFIG, so the service reads no config file .*\/etc\/edgeblocks\/config\.json is not read/,
  );

  // The unit's own ExecStart (with --config): the file is read and refused, with no such warning.
  const shipped = unitRoot(t, { config: JSON.stringify({ emitInterval: 'soon' }) });
  const refused = check(t, shipped);
  t.equal(refused.code, 2, refused.out);
  t.match(refused.err, /emitInterval/);
  t.notMatch(refused.err, /reads no config file/);
});

t.test(
  'a drop-in ExecStart with no --data-dir: the data dir the service takes, from its working directory',
  async (t) => {
    // No --data-dir, no dataDir in the file: the default ./data, in WorkingDirectory=/var/lib/edgeblocks.
    const root = unitRoot(t, {
      dropIn: `[Service]\nExecStart=\nExecStart=${NODE_LINE} --config /etc/edgeblocks/config.json --port 8099\n`,
    });
    mkdirSync(path.join(root, 'var/lib/edgeblocks/data'), { mode: 0o700 });
    const res = check(t, root);
    t.equal(res.code, 0, res.err);
    t.match(res.out, `with the data dir ${path.join(root, 'var/lib/edgeblocks/data')}\n`);

    // The file's relative dataDir, found from there too; the unit's EDGEBLOCKS_DATA_DIR beside another is refused.
    put(root, 'etc/edgeblocks/config.json', JSON.stringify({ dataDir: 'brew' }));
    mkdirSync(path.join(root, 'var/lib/edgeblocks/brew'), { mode: 0o700 });
    const fromFile = check(t, root);
    t.equal(fromFile.code, 0, fromFile.err);
    t.match(fromFile.out, `with the data dir ${path.join(root, 'var/lib/edgeblocks/brew')}\n`);
    put(root, `${DROP_INS}/50-dir.conf`, '[Service]\nEnvironment=EDGEBLOCKS_DATA_DIR=/srv/eb\n');
    const two = check(t, root);
    t.equal(two.code, 2, two.out);
    t.match(two.err, /dataDir "brew", but EDGEBLOCKS_DATA_DIR is "\/srv\/eb"/);
  },
);

t.test('WorkingDirectory=~ and no --data-dir: the data dir is not worked out, as a relative flag there', async (t) => {
  // systemd's ~ is the home of User=: the default ./data (or the file's relative dataDir) is
  // there, not in /. As with a relative --data-dir in that working directory, it is said by name.
  const line = `${NODE_LINE} --config /etc/edgeblocks/config.json --port 8099`;
  const root = unitRoot(t, { dropIn: `[Service]\nWorkingDirectory=~\nExecStart=\nExecStart=${line}\n` });
  const notWorkedOut = /WorkingDirectory= is one edgeblocks does not work out \(~\)/;
  for (const command of ['check', 'doctor']) {
    const res = runOn(t, root, command);
    t.equal(res.code, 2, `${command}: ${res.out}`);
    t.match(res.err, notWorkedOut, command);
    t.match(res.err, /gives no --data-dir/, command);
    t.notMatch(`${res.out}${res.err}`, path.join(root, 'data'), `${command}: not <root>/data`);
  }
  // The same rule as a relative --data-dir there, and a relative EDGEBLOCKS_CONFIG.
  put(
    root,
    `${DROP_INS}/override.conf`,
    `[Service]\nWorkingDirectory=~\nExecStart=\nExecStart=${line} --data-dir data\n`,
  );
  const relative = check(t, root);
  t.equal(relative.code, 2, relative.out);
  t.match(relative.err, notWorkedOut);
  put(
    root,
    `${DROP_INS}/override.conf`,
    `[Service]\nWorkingDirectory=~\nEnvironment=EDGEBLOCKS_CONFIG=brew.json\nExecStart=\nExecStart=${NODE_LINE} --data-dir /var/lib/edgeblocks\n`,
  );
  const variable = check(t, root);
  t.equal(variable.code, 2, variable.out);
  t.match(
    variable.err,
    /the relative EDGEBLOCKS_CONFIG "brew\.json" and the unit's WorkingDirectory= is one edgeblocks does not work out \(~\)/,
  );
  // An absolute dataDir in its file needs no working directory: worked out.
  put(root, `${DROP_INS}/override.conf`, `[Service]\nWorkingDirectory=~\nExecStart=\nExecStart=${line}\n`);
  put(root, 'etc/edgeblocks/config.json', JSON.stringify({ dataDir: '/srv/eb' }));
  mkdirSync(path.join(root, 'srv/eb'), { recursive: true, mode: 0o700 });
  const absolute = check(t, root);
  t.equal(absolute.code, 0, absolute.err);
  t.match(absolute.out, `with the data dir ${path.join(root, 'srv/eb')}\n`);
});

t.test('check --data-dir DIR: the config file is still the one the unit gives the service', async (t) => {
  // A drop-in's ExecStart with neither --config nor EDGEBLOCKS_CONFIG: the service reads no file,
  // whatever data dir the check is given; it says so, and the file's refused value is not checked.
  const root = unitRoot(t, {
    dropIn: `[Service]\nExecStart=\nExecStart=${NODE_LINE} --port 8099\n`,
    config: JSON.stringify({ emitInterval: 'soon' }),
  });
  const data = path.join(root, 'srv/eb');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  const res = runOn(t, root, 'check', ['--data-dir', data]);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `the configuration is valid, with the data dir ${data}\n`);
  t.notMatch(res.err, /emitInterval/);
  t.match(res.err, /gives no --config, nor the unit EDGEBLOCKS_CONFIG, so the service reads no config file/);
  // The check's own --config beside it is read, and refused.
  const own = runOn(t, root, 'check', ['--data-dir', data, '--config', path.join(root, 'etc/edgeblocks/config.json')]);
  t.equal(own.code, 2, own.out);
  t.match(own.err, /emitInterval/);
  t.notMatch(own.err, /reads no config file/);
  // A drop-in's --config: that file is the one checked, not /etc/edgeblocks/config.json.
  put(
    root,
    `${DROP_INS}/override.conf`,
    `[Service]\nExecStart=\nExecStart=${NODE_LINE} --config /etc/edgeblocks/other.json\n`,
  );
  put(root, 'etc/edgeblocks/other.json', '{}');
  const other = runOn(t, root, 'check', ['--data-dir', data]);
  t.equal(other.code, 0, other.err);
  t.match(other.out, `(${path.join(root, 'etc/edgeblocks/other.json')}) is valid, with the data dir ${data}\n`);
  t.notMatch(other.err, /reads no config file/);
});
