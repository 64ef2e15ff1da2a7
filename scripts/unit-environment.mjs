#!/usr/bin/env node
// The EDGEBLOCKS_* variables a systemd service will start with, for the installer's config check
// (scripts/install-pi.sh, check_config): the unit's and its drop-ins' Environment= and
// EnvironmentFile=, read by the same code as `edgeblocks doctor` (src/doctor/unit-environment.ts,
// from the build beside this file). Prints NUL-separated name, value and the file that sets it,
// for each variable. With --files: the config file and data dir the effective ExecStart gives
// (a drop-in may replace it), NUL-separated, each empty when the command line gives none.
//   node scripts/unit-environment.mjs ROOT SERVICE UNIT_FILE UNIT_NAME [--files]
import { edgeblocksVariables, unitCommandLine, unitEnvironment } from '../dist/src/doctor/unit-environment.js';

const [root, service, unit, unitName, mode] = process.argv.slice(2);
if (mode === '--files') {
  const args = unitCommandLine(root, service, unit, unitName)?.args ?? [];
  /** The last value of --NAME X or --NAME=X, as the service's flags take a repeated one. */
  const flag = (name) => {
    let value = '';
    args.forEach((word, i) => {
      if (word === `--${name}` && i + 1 < args.length) value = args[i + 1];
      else if (word.startsWith(`--${name}=`)) value = word.slice(name.length + 3);
    });
    return value;
  };
  process.stdout.write(`${flag('config')}\0${flag('data-dir')}\0`);
  process.exit(0);
}
const env = unitEnvironment(root, service, unit, unitName);
if (env === null) {
  console.error(`unit-environment: cannot read ${unit}`);
  process.exit(1);
}
for (const [name, { value, from }] of edgeblocksVariables(env)) process.stdout.write(`${name}\0${value}\0${from}\0`);
