// `edgeblocks doctor`: a self-test a brewer runs on the Pi, with the service stopped or running.
// It prints a report to read and paste into an issue (--json for tools): the system, the
// interfaces, each bus with N reads per sensor, the outputs; every finding with a verdict and
// what to do. Exit status 0 when nothing needs doing, 1 when something does, 2 for bad flags.
// With the service running it leaves the buses and outputs to the service (the data dir's lock
// says who has them) and shows the service's own view of its buses instead.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseRules } from '../alerts/rules.js';
import { ArgumentError, parseFlags, type FlagTable } from '../cli-args.js';
import { ConfigError, configFlagTable, configValues, DEFAULTS, type Config } from '../config.js';
import { loadInstalledConfig, unitOrigin } from '../installed-config.js';
import { findGpioChip } from '../../drivers/gpio/chip-base.js';
import type { GpioBackend, GpioLineConfig } from '../../drivers/gpio/types.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import type { OneWireBus } from '../../drivers/onewire/types.js';
import { silentLogger } from '../log.js';
import { certificateFileWarning } from '../shared/cert-validity.js';
import { VERSION } from '../shared/version.js';
import { tryLockDataDir, type DataDirLock } from '../store/data-dir-lock.js';
import { advice } from './advice.js';
import { busSection } from './buses.js';
import { i2cSection } from './i2c.js';
import { interfacesSection } from './interfaces.js';
import { outputsSection, toggleOutput } from './outputs.js';
import { countProblems, renderText, section, type Report, type Section } from './report.js';
import { rootsAt, type Roots } from './roots.js';
import { serviceSection } from './service.js';
import { historyRateFromFiles, systemSection } from './system.js';
import { serviceCommandLine, severalExecStart } from './unit-command-line.js';
import { notARoot, serviceVariables, type UnitVariable } from './unit-environment.js';

const DOCTOR_FLAGS: FlagTable = {
  json: { type: 'boolean' },
  toggle: { type: 'string' },
  'toggle-seconds': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  reads: { type: 'string' },
  root: { type: 'string' },
};

const HELP = `Usage: edgeblocks doctor [--json] [--reads N] [--toggle NAME [--toggle-seconds S] [--yes]] [config options]

Checks the system, the interfaces, each 1-Wire bus (N reads per sensor) and the outputs, and
prints what it found with what to do. Exit status 0 when nothing needs doing.

  --json              the report as JSON
  --reads N           reads per sensor (default 5, 1..50)
  --toggle NAME       switch the GPIO output NAME out of its safe state and back (asks first)
  --toggle-seconds S  how long (default 3, 1..30)
  --yes, -y           do not ask before --toggle
  --root DIR          look at the system under DIR instead of / (an SD card mounted elsewhere)

The config is /etc/edgeblocks/config.json when it exists (or --config FILE), the data dir
/var/lib/edgeblocks when it exists (or --data-dir DIR), with the EDGEBLOCKS_ variables the
installed unit and its drop-ins set (sudo systemctl edit edgeblocks; your own environment wins
over them), as the service gets them. With the service running, the buses and
outputs are left to it: stop it (sudo systemctl stop edgeblocks) to test them. With auth on,
the doctor shows the service's view with an API token in EDGEBLOCKS_TOKEN.`;

class UsageError extends Error {}

function intFlag(
  value: string | boolean | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`--${name}: must be a whole number ${min}..${max}`);
  return n;
}

/** A directory a flag names; a misspelt one is refused, not reported on as an empty system. */
function existingDir(dir: string, flag: string): string {
  const problem = notARoot(dir);
  if (problem) throw new UsageError(`${flag} ${dir}: ${problem}`);
  return dir;
}

/** The installed service's config, data dir and unit environment are the defaults, when they exist. */
function doctorConfig(
  values: Record<string, string | boolean>,
  roots: Roots,
  fromUnit: Map<string, UnitVariable>,
): Config {
  const config = loadInstalledConfig(
    configValues(values),
    process.env,
    roots.root,
    fromUnit,
    serviceCommandLine(roots.root),
  );
  if (roots.root !== '/' && config.w1Root === DEFAULTS.w1Root) config.w1Root = join(roots.sys, 'bus/w1/devices');
  return config;
}

/** The unit's variables the doctor took, by the file that sets them: "A, B (file); C (file)". */
function unitFact(fromUnit: Map<string, UnitVariable>): string | null {
  const byFile = new Map<string, string[]>();
  for (const [name, { from }] of fromUnit) byFile.set(from, [...(byFile.get(from) ?? []), name]);
  return byFile.size ? [...byFile].map(([file, names]) => `${names.join(', ')} (${file})`).join('; ') : null;
}

interface Hardware {
  buses: OneWireBus[];
  /** The I2C buses whose sensors are tested (not the HDMI display buses). */
  i2c: () => Promise<Array<{ name: string; bus: I2cBus }>>;
  gpioLines: GpioLineConfig[];
  gpio: () => Promise<GpioBackend | null>;
  /** Advances the emulation (sim mode) before each read. */
  step: () => void;
  close: () => Promise<void>;
}

async function openHardware(config: Config): Promise<Hardware> {
  const masters = await import('../hardware/masters.js');
  const log = silentLogger;
  const buses: OneWireBus[] = [];
  if (config.hardware === 'sim') {
    const { openSim } = await import('../hardware/sim-mode.js');
    const sim = await openSim(config.simConfig, { now: () => performance.now() }, { w1RefreshMs: 0 });
    sim.step(performance.now());
    if (sim.w1Root) buses.push(...(await masters.openW1Masters(sim.w1Root, log)));
    if (sim.i2c) buses.push(...(await masters.probeI2c(sim.i2c, 'emulated I2C bus', log, true)));
    for (const link of sim.serialLinks) {
      const bus = await masters.openSerialLinkMaster(link, log);
      if (bus) buses.push(bus);
    }
    const simI2c = sim.i2c;
    return {
      buses,
      i2c: async () => (simI2c ? [{ name: 'emulated', bus: simI2c }] : []),
      gpioLines: config.gpio.length ? config.gpio : sim.gpioLines,
      gpio: async () => sim.gpio,
      step: () => sim.step(performance.now()),
      close: async () => {
        for (const b of buses) await b.close().catch(() => undefined);
        await sim.close();
      },
    };
  }
  const opened: Array<{ close(): Promise<void> }> = [];
  buses.push(...(await masters.openW1Masters(config.w1Root, log)));
  buses.push(...(await masters.openI2cMasters(config.i2cBuses, log, (i2c) => opened.push(i2c))));
  buses.push(...(await masters.openSerialMasters(config.serialPorts, log)));
  return {
    buses,
    i2c: async () => {
      const { openI2cBus } = await import('../../drivers/i2c/i2c-bus.js');
      const out: Array<{ name: string; bus: I2cBus }> = [];
      for (const spec of config.i2cBuses.length ? config.i2cBuses : await masters.listI2cBuses()) {
        const n = masters.i2cBusNumber(spec);
        if (n === null) continue;
        try {
          const bus = await openI2cBus(n);
          opened.push(bus);
          out.push({ name: `/dev/i2c-${n}`, bus });
        } catch {
          // cannot be opened: the interfaces section says why (permissions, no device)
        }
      }
      return out;
    },
    gpioLines: config.gpio,
    gpio: async () => (await import('../hardware/gpio-backend.js')).linuxGpioBackend(config.gpioChipLabel, log),
    step: () => undefined,
    close: async () => {
      for (const b of buses) await b.close().catch(() => undefined);
      for (const i2c of opened) await i2c.close().catch(() => undefined);
    },
  };
}

export async function buildReport(
  config: Config,
  roots: Roots,
  options: {
    reads: number;
    toggle?: { name: string; seconds: number; confirmed: boolean };
    /** The unit's EDGEBLOCKS_ variables the settings took, for the report. */
    fromUnit?: Map<string, UnitVariable>;
  },
): Promise<Report> {
  const sections: Section[] = [];
  const diskFreePercent = parseRules(config.alerts?.rules ?? {}).service.diskFreePercent;
  const held = existsSync(config.dataDir) ? tryLockDataDir(config.dataDir) : ({ absent: true } as const);
  let lock: DataDirLock | null = 'lock' in held ? held.lock : null;
  try {
    const running = 'busy' in held ? held.busy : null;
    const service = running ? await serviceSection(config, running.pid) : null;
    const system = systemSection(
      roots,
      config.dataDir,
      diskFreePercent,
      service?.historyRate ?? historyRateFromFiles(config.dataDir),
    );
    const commandLine = serviceCommandLine(roots.root);
    const several = severalExecStart(commandLine);
    if (several) system.findings.push({ verdict: 'fail', text: several });
    for (const text of commandLine?.warnings ?? []) system.findings.push({ verdict: 'warn', text });
    const fromUnit = unitFact(options.fromUnit ?? new Map());
    if (fromUnit) system.facts.push(['service environment', fromUnit]);
    // The certificate file as it is now (a dashboard refused in the browser); the served one is in the Service section.
    const cert =
      config.httpsPort > 0 && config.httpsCert
        ? certificateFileWarning(config.httpsCert, roots.root === '/' ? undefined : roots.root)
        : null;
    if (cert) system.findings.push({ verdict: 'warn', text: cert });
    sections.push(system);
    const interfaces = await interfacesSection(
      roots,
      config.w1Root,
      config.gpio,
      config.gpioChipLabel,
      config.serialPorts,
    );
    sections.push(interfaces.section);
    if (service) {
      if (options.toggle)
        throw new UsageError(
          `--toggle ${options.toggle.name}: the service is running${running?.pid ? ` (pid ${running.pid})` : ''} and drives the outputs; stop it first (sudo systemctl stop edgeblocks)`,
        );
      sections.push(service.section);
      return report(sections);
    }
    const hw = await openHardware(config);
    try {
      const buses = section('Buses');
      buses.facts.push(['reads per sensor', String(options.reads)]);
      if (hw.buses.length === 0)
        buses.findings.push({
          verdict: 'fail',
          text: 'no 1-Wire master: no w1 master, DS2482 or DS2480B',
          ...advice('noW1Master'),
        });
      buses.parts = [];
      for (const bus of hw.buses) buses.parts.push(await busSection(bus, options.reads, hw.step));
      if (hw.buses.length && !buses.parts.some((p) => p.parts?.length))
        buses.findings.push({ verdict: 'warn', text: 'no DS18B20 on any bus', ...advice('noW1Master') });
      for (const { name, bus } of await hw.i2c()) buses.parts.push(await i2cSection(name, bus, options.reads, hw.step));
      sections.push(buses);
      let base: number | null = null;
      try {
        base = (await findGpioChip({ root: join(roots.sys, 'class/gpio'), label: config.gpioChipLabel })).base;
      } catch {
        base = null;
      }
      const outputs = outputsSection(hw.gpioLines, config.hardware === 'sim' ? null : base);
      if (options.toggle) {
        const line = hw.gpioLines.find((l) => l.name === options.toggle!.name && l.direction === 'out');
        if (!line)
          throw new UsageError(
            `--toggle ${options.toggle.name}: no GPIO output of that name (outputs: ${
              hw.gpioLines
                .filter((l) => l.direction === 'out')
                .map((l) => l.name)
                .join(', ') || 'none'
            })`,
          );
        const backend = await hw.gpio();
        if (!backend)
          outputs.findings.push({ verdict: 'fail', text: 'no GPIO backend on this machine', ...advice('gpioNumbers') });
        else await toggleOutput(outputs, backend, line, options.toggle);
      }
      sections.push(outputs);
    } finally {
      await hw.close();
    }
    return report(sections);
  } finally {
    lock?.release();
    lock = null;
  }
}

function report(sections: Section[]): Report {
  return {
    tool: 'edgeblocks doctor',
    version: VERSION,
    time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    sections,
    problems: countProblems(sections),
  };
}

/** `edgeblocks doctor ARGS`; resolves to the exit status. */
export async function runDoctor(argv: string[]): Promise<number> {
  let fromUnit = new Map<string, UnitVariable>();
  try {
    const { values, positionals } = parseFlags(argv, { ...configFlagTable(), ...DOCTOR_FLAGS });
    if (values.help || positionals.includes('help')) {
      console.log(HELP);
      return 0;
    }
    if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (see --help)`);
    const roots = rootsAt(typeof values.root === 'string' ? existingDir(values.root, '--root') : '/');
    const own = configValues(values);
    fromUnit = serviceVariables(roots.root, { dataDir: own.dataDir !== undefined, config: own.config !== undefined });
    const config = doctorConfig(values, roots, fromUnit);
    const reads = intFlag(values.reads, 'reads', 5, 1, 50);
    const toggle =
      typeof values.toggle === 'string'
        ? {
            name: values.toggle,
            seconds: intFlag(values['toggle-seconds'], 'toggle-seconds', 3, 1, 30),
            confirmed: values.yes === true,
          }
        : undefined;
    if (toggle === undefined && values['toggle-seconds'] !== undefined)
      throw new UsageError('--toggle-seconds goes with --toggle NAME');
    const result = await buildReport(config, roots, { reads, toggle, fromUnit });
    process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : renderText(result));
    return result.problems === 0 ? 0 : 1;
  } catch (e) {
    if (e instanceof UsageError || e instanceof ArgumentError || e instanceof ConfigError) {
      // A variable the service gets from its unit is named with the file that sets it.
      const where = unitOrigin(e, fromUnit);
      process.stderr.write(
        `edgeblocks doctor: ${e instanceof ConfigError ? 'configuration error: ' : ''}${e.message}${where}\n`,
      );
      return 2;
    }
    throw e;
  }
}
