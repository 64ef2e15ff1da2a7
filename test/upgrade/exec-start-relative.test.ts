// How systemd, not a tool in another directory, reads a drop-in's ExecStart and the config file
// it names. (1) A relative --config or --data-dir was checked from / (check, the doctor) or not
// at all (the installer kept the unit's), though systemd starts the service in its
// WorkingDirectory= (/var/lib/edgeblocks in the unit), where the service finds it. (2) An
// unset $VAR was refused; systemd makes it empty, so it is read so, with a warning naming it.
// Not so a variable systemd itself sets for the service ($STATE_DIRECTORY of StateDirectory=,
// $HOME of User=): known from the unit's settings, it is expanded as systemd does; one that
// exists only while the service runs ($INVOCATION_ID, $MAINPID) is refused by name.
// (3) A drop-in's --config naming a file that is not there was checked as no file ("valid");
// the service refuses to start. (4) A relative httpsCert in the config file was read from the
// tool's own directory; the service reads it from its working directory. The built CLI as a
// child process on a laid-out root, started from another directory.
// tags: slow (the built CLI, several times)
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generate } from 'selfsigned';
import t, { type Test } from 'tap';

import { NODE_LINE, runOn, unitRoot } from './unit-root.js';

const withDropIn = (t: Test, text: string, config = '{}') => unitRoot(t, { dropIn: text, config });
const check = (t: Test, root: string, args: string[] = []) => runOn(t, root, 'check', args);

t.test('a relative --config and --data-dir are found from the unit’s WorkingDirectory', async (t) => {
  // The unit's WorkingDirectory=/var/lib/edgeblocks.
  const root = withDropIn(t, `[Service]\nExecStart=\nExecStart=${NODE_LINE} --config brew.json --data-dir ./brew\n`);
  writeFileSync(path.join(root, 'var/lib/edgeblocks/brew.json'), JSON.stringify({ port: 8099 }));
  mkdirSync(path.join(root, 'var/lib/edgeblocks/brew'), { mode: 0o700 });
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `(${path.join(root, 'var/lib/edgeblocks/brew.json')}) is valid`);
  t.match(res.out, `with the data dir ${path.join(root, 'var/lib/edgeblocks/brew')}`);

  // A WorkingDirectory= of the drop-in's own (with a specifier) counts; the file found there is read.
  const moved = withDropIn(
    t,
    `[Service]\nWorkingDirectory=%S/cellar\nExecStart=\nExecStart=${NODE_LINE} --config=etc/eb.json --data-dir data\n`,
  );
  mkdirSync(path.join(moved, 'var/lib/cellar/etc'), { recursive: true });
  mkdirSync(path.join(moved, 'var/lib/cellar/data'), { mode: 0o700 });
  writeFileSync(path.join(moved, 'var/lib/cellar/etc/eb.json'), JSON.stringify({ emitInterval: 'soon' }));
  const refused = check(t, moved);
  t.equal(refused.code, 2, refused.out);
  t.match(refused.err, /emitInterval \(file\)/);
});

t.test('an unset variable in ExecStart is empty, as systemd makes it, with a warning', async (t) => {
  const root = withDropIn(t, `[Service]\nExecStart=\nExecStart=${NODE_LINE} --data-dir /srv/\${NOWHERE}brew $EXTRA\n`);
  mkdirSync(path.join(root, 'srv/brew'), { recursive: true, mode: 0o700 });
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `with the data dir ${path.join(root, 'srv/brew')}`);
  t.match(
    res.err,
    /override\.conf uses \$NOWHERE, which no Environment= .* systemd makes it empty, so the service gets "\/srv\/brew"/,
  );
  t.match(res.err, /uses \$EXTRA/);
});

t.test('variables systemd sets for the service are what it sets, not empty', async (t) => {
  // The unit's StateDirectory=edgeblocks, CacheDirectory=edgeblocks and User=edgeblocks; a drop-in's ConfigurationDirectory=.
  const root = withDropIn(
    t,
    `[Service]\nConfigurationDirectory=edgeblocks\nExecStart=\nExecStart=${NODE_LINE} --data-dir \${STATE_DIRECTORY}/brew --config \${CONFIGURATION_DIRECTORY}/brew.json\n`,
  );
  mkdirSync(path.join(root, 'var/lib/edgeblocks/brew'), { mode: 0o700 });
  writeFileSync(path.join(root, 'etc/edgeblocks/brew.json'), JSON.stringify({ port: 8099 }));
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  t.notMatch(res.out + res.err, /makes it empty/, 'no variable is said to be empty');
  t.match(res.out, `(${path.join(root, 'etc/edgeblocks/brew.json')}) is valid`);
  t.match(res.out, `with the data dir ${path.join(root, 'var/lib/edgeblocks/brew')}`);

  // $HOME of User=edgeblocks, from the root's /etc/passwd; the unit's own Environment= wins over systemd's.
  const home = withDropIn(
    t,
    `[Service]\nEnvironment=STATE_DIRECTORY=/srv\nExecStart=\nExecStart=${NODE_LINE} --data-dir \${HOME}/brew --config \${STATE_DIRECTORY}/eb.json\n`,
  );
  writeFileSync(
    path.join(home, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/bash\nedgeblocks:x:998:998::/home/edgeblocks:/usr/sbin/nologin\n',
  );
  mkdirSync(path.join(home, 'home/edgeblocks/brew'), { recursive: true, mode: 0o700 });
  mkdirSync(path.join(home, 'srv'));
  writeFileSync(path.join(home, 'srv/eb.json'), '{}');
  const fromHome = check(t, home);
  t.equal(fromHome.code, 0, fromHome.err);
  t.match(fromHome.out, `(${path.join(home, 'srv/eb.json')}) is valid`);
  t.match(fromHome.out, `with the data dir ${path.join(home, 'home/edgeblocks/brew')}`);
  t.notMatch(fromHome.out + fromHome.err, /makes it empty/);

  // No such user there: $HOME is not known, and refused by name rather than read as /brew.
  const noUser = withDropIn(t, `[Service]\nExecStart=\nExecStart=${NODE_LINE} --data-dir \${HOME}/brew\n`);
  const refused = check(t, noUser);
  t.equal(refused.code, 2, refused.out);
  t.match(
    refused.err,
    /uses \$HOME, which systemd takes from the user database for User=edgeblocks, and .*\/etc\/passwd has no such user/,
  );
  t.notMatch(refused.out + refused.err, /makes it empty|"\/brew"/);
});

t.test('a variable systemd sets only while the service runs is refused by name, not read as empty', async (t) => {
  const root = withDropIn(t, `[Service]\nExecStart=\nExecStart=${NODE_LINE} --data-dir /srv/\${INVOCATION_ID}\n`);
  const res = check(t, root);
  t.equal(res.code, 2, res.out);
  t.match(res.err, /override\.conf uses \$INVOCATION_ID, which systemd sets only when it starts the service/);
  t.notMatch(res.out + res.err, /makes it empty/);
});

t.test('a drop-in’s --config naming a missing file: the service refuses it, and so does check', async (t) => {
  const root = withDropIn(t, `[Service]\nExecStart=\nExecStart=${NODE_LINE} --config /etc/edgeblocks/cellar.json\n`);
  const res = check(t, root);
  t.equal(res.code, 2, res.out);
  t.match(
    res.err,
    /\/etc\/edgeblocks\/cellar\.json, the config file the ExecStart in \/etc\/systemd\/system\/edgeblocks\.service\.d\/override\.conf gives the service, does not exist.*refuses to start/,
  );
});

t.test('a relative httpsCert in the config file is found where the service finds it', async (t) => {
  const pems = await generate([{ name: 'commonName', value: 'brewery.example' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 400 * 86_400_000),
    notAfterDate: new Date(Date.now() - 2 * 86_400_000),
  });
  const root = withDropIn(
    t,
    '[Service]\nEnvironment=EDGEBLOCKS_SERVICE_ID=cellar\n',
    JSON.stringify({ httpsPort: 8443, httpsCert: 'tls/cert.pem', httpsKey: 'tls/key.pem' }),
  );
  mkdirSync(path.join(root, 'var/lib/edgeblocks/tls'));
  writeFileSync(path.join(root, 'var/lib/edgeblocks/tls/cert.pem'), pems.cert);
  writeFileSync(path.join(root, 'var/lib/edgeblocks/tls/key.pem'), pems.private);
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  // Read from /var/lib/edgeblocks (the unit's WorkingDirectory): expired, not "cannot be read".
  t.match(res.err, /the HTTPS certificate \/var\/lib\/edgeblocks\/tls\/cert\.pem has expired/);
  t.notMatch(res.err, /cannot be read/);

  // The unit's file given by name (as the installer gives it, or `check --config` by hand): the same.
  const named = check(t, root, ['--config', path.join(root, 'etc/edgeblocks/config.json')]);
  t.equal(named.code, 0, named.err);
  t.match(named.err, /the HTTPS certificate \/var\/lib\/edgeblocks\/tls\/cert\.pem has expired/);
  t.notMatch(named.err, /cannot be read/);
});

// A drop-in that gives ExecStart= another --config leaves the unit's ExecStopPost= (the
// failsafe) on /etc/edgeblocks/config.json: after a stop or crash the failsafe made safe the
// outputs of that file, not of the one the service drove, without a word. Check says so.
t.test('a drop-in’s --config the failsafe’s ExecStopPost does not follow is named', async (t) => {
  const root = withDropIn(t, `[Service]\nExecStart=\nExecStart=${NODE_LINE} --config /etc/edgeblocks/cellar.json\n`);
  writeFileSync(path.join(root, 'etc/edgeblocks/cellar.json'), '{}');
  const res = check(t, root);
  t.equal(res.code, 0, res.err);
  t.match(
    res.err,
    /the service reads \/etc\/edgeblocks\/cellar\.json but its failsafe \(the ExecStopPost= in \/etc\/systemd\/system\/edgeblocks\.service\) reads \/etc\/edgeblocks\/config\.json/,
  );

  // Both given the file: no warning.
  const both = withDropIn(
    t,
    `[Service]\nExecStart=\nExecStart=${NODE_LINE} --config /etc/edgeblocks/cellar.json\nExecStopPost=\nExecStopPost=/usr/bin/node /opt/edgeblocks/dist/src/failsafe/index.js --config /etc/edgeblocks/cellar.json\n`,
  );
  writeFileSync(path.join(both, 'etc/edgeblocks/cellar.json'), '{}');
  const fine = check(t, both);
  t.equal(fine.code, 0, fine.err);
  t.notMatch(fine.err, /failsafe/);
});

// A relative EDGEBLOCKS_CONFIG in a drop-in whose ExecStart has no --config: the service reads it
// from its WorkingDirectory. Check found the file there, but compared the unit's variable, read
// from the check's own directory, with it and refused "two config files" (exit 2).
t.test('a drop-in’s relative EDGEBLOCKS_CONFIG, the file in the working directory: valid', async (t) => {
  const root = withDropIn(
    t,
    `[Service]\nEnvironment=EDGEBLOCKS_CONFIG=brew.json\nExecStart=\nExecStart=${NODE_LINE} --data-dir /var/lib/edgeblocks\n`,
  );
  writeFileSync(path.join(root, 'var/lib/edgeblocks/brew.json'), JSON.stringify({ port: 8099 }));
  for (const command of ['check', 'doctor']) {
    const res = runOn(t, root, command);
    t.notMatch(res.err, /EDGEBLOCKS_CONFIG is "brew\.json", but --config/, `${command}: no two files`);
    if (command === 'check') {
      t.equal(res.code, 0, res.err);
      t.match(res.out, /brew\.json\) is valid/, res.out);
    }
  }
});
