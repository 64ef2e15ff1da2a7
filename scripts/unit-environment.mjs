#!/usr/bin/env node
// The EDGEBLOCKS_* variables a systemd service will start with, for the installer's config check
// (scripts/install-pi.sh, check_config): the unit's and its drop-ins' Environment= and
// EnvironmentFile=, over DefaultEnvironment= of system.conf and its drop-ins, read by the same code as `edgeblocks doctor` (src/doctor/unit-environment.ts and unit-command-line.ts,
// from the build beside this file). Prints NUL-separated name, value and the file that sets it,
// for each variable. With --args: the service's arguments in the effective ExecStart (a drop-in
// may replace it; its specifiers and variables expanded), each followed by a NUL, or status 1 and
// why when they cannot be worked out (warnings, such as a variable systemd leaves empty, on stderr).
//   node scripts/unit-environment.mjs ROOT SERVICE UNIT_FILE UNIT_NAME [--args]
import { unitCommandLine } from '../dist/src/doctor/unit-command-line.js';
import { edgeblocksVariables, serviceEnvironment } from '../dist/src/doctor/unit-environment.js';

const [root, service, unit, unitName, mode] = process.argv.slice(2);
if (mode === '--args') {
  const line = unitCommandLine(root, service, unit, unitName);
  // Words not worked out (a specifier or variable the unit does not set): said, not given as another path.
  if (line?.unread) {
    console.error(line.unread);
    process.exit(1);
  }
  // What systemd does that the writer may not expect (a variable it leaves empty): said on stderr.
  for (const warning of line?.warnings ?? []) console.error(warning);
  for (const word of line?.args ?? []) process.stdout.write(`${word}\0`);
  process.exit(0);
}
const env = serviceEnvironment(root, service, unit, unitName);
if (env === null) {
  console.error(`unit-environment: cannot read ${unit}`);
  process.exit(1);
}
for (const [name, { value, from }] of edgeblocksVariables(env)) process.stdout.write(`${name}\0${value}\0${from}\0`);
