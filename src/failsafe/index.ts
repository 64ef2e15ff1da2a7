#!/usr/bin/env node
// edgeblocks-failsafe: drives every configured GPIO output to its safe state and switches every
// DS2408/DS2413 output off and puts MCP23017/PCF8574/PCA9685 chips back in their power-on state. systemd runs it as ExecStopPost= after every stop of the service,
// crashes and watchdog kills included, so it depends on nothing but the config file and the
// EDGEBLOCKS_ variables of the service's environment (which systemd gives ExecStopPost= too; read
// with the service's schema, src/config-schema.ts, a variable over the file as for the service) and the drivers: GPIO through plain sysfs file
// writes, the 1-Wire masters opened afresh (bounded by --timeout), no database, no runtime.
// What the service would refuse in the config is reported (exit 1); every output it can read
// is still made safe.
//
//   edgeblocks-failsafe --config FILE [--gpio-root DIR] [--chip-label LABEL] [--timeout MS]
//
// The chip label comes from --chip-label, else EDGEBLOCKS_GPIO_CHIP_LABEL, else the config's
// gpioChipLabel, else the Pi header labels.
//
// Exit 0 when every output was driven and read back at its safe level, 1 otherwise. Every
// problem is one line on stderr, never a stack trace.
import { readFile } from 'node:fs/promises';
import { DEFAULT_GPIO_ROOT } from '../../drivers/gpio/chip-base.js';
import { safePhysicalLevel, safeState } from '../../drivers/gpio/levels.js';
import { parseGpioLineConfigs } from '../../drivers/gpio/line-config.js';
import { SysfsGpioBackend } from '../../drivers/gpio/sysfs-backend.js';
import type { GpioLineConfig } from '../../drivers/gpio/types.js';
import { parseFlags, type FlagTable } from '../cli-args.js';
import { checkConfigDocument, checkEnv, DEFAULTS, issueKey, type Config } from '../config-schema.js';
import { parseJsonFile } from '../shared/json.js';
import { unreadableFile } from '../shared/unreadable.js';
import { oneWireOutputsOff } from './onewire.js';
import { i2cOutputsOff } from './i2c.js';
import { openI2cBus } from '../../drivers/i2c/i2c-bus.js';
import { i2cBusNumber, listI2cBuses } from '../hardware/masters.js';

const FLAGS: FlagTable = {
  config: { type: 'string' },
  'gpio-root': { type: 'string' },
  'chip-label': { type: 'string' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};
const USAGE = 'usage: edgeblocks-failsafe --config FILE [--gpio-root DIR] [--chip-label LABEL] [--timeout MS]';
/** How long the 1-Wire masters get, in all: systemd waits for ExecStopPost before a restart. */
const DEFAULT_ONEWIRE_TIMEOUT_MS = 4000;

interface Options {
  config?: string;
  gpioRoot: string;
  chipLabel?: string;
  timeoutMs: number;
}

class UsageError extends Error {}

function say(line: string): void {
  process.stdout.write(`failsafe: ${line}\n`);
}

function problem(line: string): void {
  process.stderr.write(`failsafe: ${line}\n`);
}

function text(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    config: process.env.EDGEBLOCKS_CONFIG || undefined,
    gpioRoot: DEFAULT_GPIO_ROOT,
    timeoutMs: DEFAULT_ONEWIRE_TIMEOUT_MS,
  };
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv, FLAGS);
  } catch (err) {
    throw new UsageError(text(err));
  }
  const { values, positionals } = parsed;
  if (values.help === true || positionals[0] === 'help') {
    say(USAGE);
    process.exit(0);
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (typeof values.config === 'string') options.config = values.config;
  if (typeof values['gpio-root'] === 'string') options.gpioRoot = values['gpio-root'];
  if (typeof values['chip-label'] === 'string') options.chipLabel = values['chip-label'];
  if (typeof values.timeout === 'string') {
    const ms = Number(values.timeout);
    if (!Number.isInteger(ms) || ms < 100 || ms > 60000)
      throw new UsageError('--timeout takes milliseconds from 100 to 60000');
    options.timeoutMs = ms;
  }
  return options;
}

async function loadConfig(path: string): Promise<Record<string, unknown>> {
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch (err) {
    throw new Error(unreadableFile(`config ${path}`, path, err));
  }
  const parsed = parseJsonFile(raw, `config ${path}`);
  if (!parsed.ok) throw new Error(parsed.reason);
  const json = parsed.value;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new Error(`config ${path} must be a JSON object`);
  }
  return json as Record<string, unknown>;
}

async function makeSafe(gpio: SysfsGpioBackend, config: GpioLineConfig): Promise<string | null> {
  const wanted = safeState(config);
  const pin = safePhysicalLevel(config) === 1 ? 'high' : 'low';
  try {
    const line = await gpio.open(config);
    const level = await line.read();
    await line.close();
    if (level === null) return `${config.name} (line ${config.line}): written ${pin} but could not be read back`;
    if (level !== wanted)
      return `${config.name} (line ${config.line}): written ${pin} but reads ${level ? 'active' : 'inactive'}`;
    say(`${config.name} (line ${config.line}) ${wanted ? 'active' : 'inactive'}, pin ${pin}`);
    return null;
  } catch (err) {
    return text(err);
  }
}

/** GPIO outputs to their safe level, the good entries of a list with bad ones too. Returns the number of failures. */
async function gpioOutputsSafe(gpioEntries: unknown, config: Config, options: Options): Promise<number> {
  const { lines, errors } = parseGpioLineConfigs(gpioEntries);
  errors.forEach(problem);
  const outputs = lines.filter((line) => line.direction === 'out');
  if (outputs.length === 0) {
    if (errors.length === 0) say('no GPIO outputs configured');
    return errors.length;
  }
  const label = options.chipLabel ?? config.gpioChipLabel;
  let gpio: SysfsGpioBackend;
  try {
    gpio = await SysfsGpioBackend.detect({ root: options.gpioRoot, label });
  } catch (err) {
    problem(`${text(err)}; ${outputs.length} output(s) NOT made safe`);
    return errors.length + 1;
  }
  let failed = errors.length;
  for (const output of outputs) {
    const failure = await makeSafe(gpio, output);
    if (failure) {
      problem(failure);
      failed++;
    }
  }
  await gpio.close();
  return failed;
}

async function main(argv: string[]): Promise<number> {
  const options = parseArgs(argv);
  if (!options.config) throw new UsageError('--config FILE is required');
  const json = await loadConfig(options.config);
  // The service's schema: what it refuses is reported here too; the rest is still made safe.
  const { values, issues } = checkConfigDocument(json);
  const config: Config = { ...DEFAULTS, ...values };
  // The service's variables (a drop-in's EDGEBLOCKS_SERIAL_PORTS, say) win over the file, as they
  // do for the service: the failsafe opens the masters the service drove.
  const fromEnv = checkEnv(process.env);
  issues.push(...fromEnv.issues);
  Object.assign(config, fromEnv.values);
  if (config.hardware === 'sim') {
    say('hardware is "sim": no real outputs to make safe');
    return 0;
  }
  const otherIssues = issues.filter((i) => i.path !== 'gpio' && !i.path.startsWith('gpio['));
  for (const issue of otherIssues) problem(`configuration error: ${issueKey(issue)}: ${issue.message}`);
  let failed = otherIssues.length + (await gpioOutputsSafe(json.gpio, config, options));
  const report = { say, problem };
  failed += await oneWireOutputsOff(config, report, options.timeoutMs);
  const i2cBuses = (config.i2cBuses.length ? config.i2cBuses : await listI2cBuses())
    .map(i2cBusNumber)
    .filter((n): n is number => n !== null);
  failed += await i2cOutputsOff(i2cBuses, (n) => openI2cBus(n), report);
  return failed === 0 ? 0 : 1;
}

process.on('uncaughtException', (err) => {
  problem(`unexpected error: ${text(err)}`);
  process.exit(1);
});
process.on('unhandledRejection', (err) => {
  problem(`unexpected error: ${text(err)}`);
  process.exit(1);
});

// Exits explicitly: a serial port or I2C handle left open by a hung bus must not keep it alive.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    problem(err instanceof UsageError ? `${err.message} (${USAGE})` : text(err));
    process.exit(1);
  },
);
