// The config file the installed unit gives the service, not there: its ExecStart's own --config
// (/etc/edgeblocks/config.json, deleted or never written), or EDGEBLOCKS_CONFIG of a drop-in whose
// ExecStart has no --config. The service cannot read it and refuses to start (exit 2, restarted
// until systemd gives up), but check and the doctor took it as a fresh install with no file yet
// and called the defaults valid. They now refuse it, naming the file and where the unit names
// it; and the file EDGEBLOCKS_CONFIG names is the one checked when it is there. The built CLI as
// a child process on a laid-out root.
// tags: slow (the built CLI, several times)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';

import { NODE_LINE, runOn, unitRoot } from './unit-root.js';

/** A root with the unit and its data dir (no config file), and the drop-in `text` if given. */
const installed = (t: Test, text?: string) => unitRoot(t, { dropIn: text, config: null });
const run = (t: Test, root: string, command: string) => runOn(t, root, command);

t.test('the unit’s own --config not there: check and the doctor say the service cannot start', async (t) => {
  const root = installed(t);
  for (const command of ['check', 'doctor']) {
    const res = run(t, root, command);
    t.equal(res.code, 2, `${command}: ${res.out}`);
    t.match(
      res.err,
      /\/etc\/edgeblocks\/config\.json, the config file the ExecStart in \/etc\/systemd\/system\/edgeblocks\.service gives the service, does not exist: the service cannot read it and refuses to start/,
      command,
    );
    t.notMatch(res.out, /is valid/, command);
  }
});

t.test('a drop-in’s EDGEBLOCKS_CONFIG, with no --config in its ExecStart, is the file checked', async (t) => {
  const text = `[Service]\nEnvironment=EDGEBLOCKS_CONFIG=/etc/edgeblocks/brew.json\nExecStart=\nExecStart=${NODE_LINE} --data-dir /var/lib/edgeblocks\n`;
  const root = installed(t, text);
  const missing = run(t, root, 'check');
  t.equal(missing.code, 2, missing.out);
  t.match(
    missing.err,
    /\/etc\/edgeblocks\/brew\.json, the config file EDGEBLOCKS_CONFIG in \/etc\/systemd\/system\/edgeblocks\.service\.d\/override\.conf gives the service, does not exist/,
  );

  // There: it is the file read (its refused value named), not the defaults.
  writeFileSync(path.join(root, 'etc/edgeblocks/brew.json'), JSON.stringify({ emitInterval: 'soon' }));
  const read = run(t, root, 'check');
  t.equal(read.code, 2, read.out);
  t.match(read.err, /emitInterval/);
  writeFileSync(path.join(root, 'etc/edgeblocks/brew.json'), JSON.stringify({ port: 8099 }));
  const valid = run(t, root, 'check');
  t.equal(valid.code, 0, valid.err);
  t.match(valid.out, `(${path.join(root, 'etc/edgeblocks/brew.json')}) is valid`);
});
