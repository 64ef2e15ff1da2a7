// Stand-ins for the system commands scripts/install-pi.sh calls, for running it in a throwaway
// root: each records its call in $FAKE_STATE/calls, and users and groups live in $FAKE_STATE.
import { chmodSync, copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export const INSTALL_FAKES: Record<string, string> = {
  // getent DB KEY, from $FAKE_STATE/DB
  getent: `grep "^$2:" "$FAKE_STATE/$1" 2>/dev/null || exit 2`,
  groupadd: `name=; for a; do name=$a; done; echo "$name:x:990:" >> "$FAKE_STATE/group"`,
  useradd: `name=; for a; do name=$a; done
echo "$name:x:990:990::/var/lib/edgeblocks:/usr/sbin/nologin" >> "$FAKE_STATE/passwd"
echo "$name:x:990:" >> "$FAKE_STATE/group"`,
  // usermod -a -G g1,g2 user
  usermod: `user=$4; for g in $(echo "$3" | tr ',' ' '); do
  sed -i -E "s/^($g:[^:]*:[^:]*:)(.+)$/\\1\\2,$user/; s/^($g:[^:]*:[^:]*:)$/\\1$user/" "$FAKE_STATE/group"
done`,
  userdel: `sed -i "/^$1:/d" "$FAKE_STATE/passwd"`,
  npm: `if [ "$1" = ci ]; then mkdir -p node_modules && echo fake > node_modules/.fake-npm; fi`,
  systemctl: 'true',
  'apt-get': 'true',
  modprobe: 'true',
};

/** Writes the fakes (and `extra` ones) into `bin` and starts an empty users/groups state in `state`. */
export function writeInstallFakes(bin: string, state: string, extra: Record<string, string> = {}): void {
  for (const [name, body] of Object.entries({ ...INSTALL_FAKES, ...extra })) {
    const file = join(bin, name);
    writeFileSync(file, `#!/bin/sh\necho "${name} $*" >> "$FAKE_STATE/calls"\n${body}\n`);
    chmodSync(file, 0o755);
  }
  // Raspberry Pi OS has gpio and dialout already; i2c is missing here on purpose.
  writeFileSync(join(state, 'group'), 'root:x:0:\ngpio:x:997:\ndialout:x:20:pi\n');
  writeFileSync(join(state, 'passwd'), 'root:x:0:0::/root:/bin/bash\n');
  writeFileSync(join(state, 'calls'), '');
}

/** The environment that runs the installer on the fakes in `bin`, into the throwaway `root`. */
export function installerEnv(bin: string, state: string, root: string, prefix: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${bin}${delimiter}${process.env.PATH}`,
    FAKE_STATE: state,
    DESTDIR: root,
    PREFIX: prefix,
  };
}

/**
 * The built CLI as far as the installer sees it: `check` runs `check` (a script's lines that exit
 * 0 or 2 as the real one does), and a start logs its port and answers system/ping.
 */
export const fakeMain = (check: string) => `if (process.argv[2] === 'check') {
${check}
}
const http = require('node:http');
const id = process.argv[process.argv.indexOf('--service-id') + 1];
const server = http.createServer((req, res) => {
  res.statusCode = req.url === '/' + id + '/system/ping' ? 200 : 404;
  res.end('{}');
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'http listening on 127.0.0.1:' + server.address().port })));
process.on('SIGTERM', () => process.exit(0));
`;

/**
 * The installer's own files into checkout `src` (systemd/, scripts/ there: install-pi.sh and the
 * parts it sources from scripts/install-pi/), as in the repository
 * `repo`, with the built readers of the unit's environment and command line its script runs.
 */
export function copyInstaller(repo: string, src: string): void {
  const reader = 'dist/src/doctor/unit-environment.js';
  const commandLine = 'dist/src/doctor/unit-command-line.js';
  const manager = 'dist/src/doctor/manager-variables.js';
  const workingDirectory = 'dist/src/shared/working-directory.js';
  mkdirSync(join(src, dirname(reader)), { recursive: true });
  mkdirSync(join(src, dirname(workingDirectory)), { recursive: true });
  const parts = readdirSync(join(repo, 'scripts/install-pi')).map((name) => `scripts/install-pi/${name}`);
  mkdirSync(join(src, 'scripts/install-pi'), { recursive: true });
  for (const file of [
    'systemd/edgeblocks.service',
    'scripts/install-pi.sh',
    ...parts,
    'scripts/unit-environment.mjs',
    reader,
    commandLine,
    manager,
    workingDirectory,
  ])
    copyFileSync(join(repo, file), join(src, file));
  // An ES module, as the real package.json says of dist (the fake checkout's main.js is CommonJS).
  writeFileSync(join(src, dirname(reader), 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(src, dirname(workingDirectory), 'package.json'), '{"type":"module"}\n');
  chmodSync(join(src, 'scripts/install-pi.sh'), 0o755);
}
