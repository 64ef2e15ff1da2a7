// The soak run: the built service on the emulated fermenter through the scripted month
// (plan.ts), on the virtual clock (virtual-clock.ts), with the real parts around it
// (processes.ts). After each step and each simulated day the invariants are checked (checks.ts);
// the report holds the figures and every failure.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkAlerts, checkControl, checkGrowth, daySpan, historyGaps, worstDeviation, type Sample } from './checks.js';
import { makePlan, profileAt, simConfig, DAY, HOUR, type Plan, type Step } from './plan.js';
import { AlertReceiver, Broker, dataSizes, freePort, ROOT, SmallDisk, SoakService } from './processes.js';
import { SOAK_DEFAULTS, type DayFigures, type Fault, type SoakOptions, type SoakReport } from './types.js';

const SEED = path.join(ROOT, 'scripts/demo-blocks.json');

const DOWN_MS = 30_000;
const KILL_DOWN_MS = 60_000;
const SAMPLE_EVERY_MS = 5 * 60_000;
/** After a start, the sensors are read anew and control resumes within this. */
const STARTING_MS = 2 * 60_000;
/** The beer may be off the profile this long after a fault that took its control away. */
const RECOVERY_MS = 6 * HOUR;

const q = (unit: string, value: number) => ({ __objtype: 'Quantity', unit, value });
const realSleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SoakRun {
  readonly plan: Plan;
  private readonly dir: string;
  private svc!: SoakService;
  private broker!: Broker;
  private readonly receiver = new AlertReceiver();
  /** Steps already run inside another (the daily restarts during the full disk). */
  private readonly done = new Set<Step>();
  private readonly disk: SmallDisk;
  private readonly dataDir: string;
  /** Script time (simulated ms since the run began) at the start of the current service run. */
  private runBase = 0;
  private uptimeMs = 0;
  /** The service's wall clock at the last look (epoch ms). */
  private wall = 0;
  private beerId = 'Beer Sensor';
  private profileStart = 0;
  /** Script time the profile has run for: it keeps its place across restarts and clock jumps. */
  private profileBase = 0;
  private nextSampleAt = 0;
  private acked = 0;
  private realStart = Date.now();
  private readonly samples: Sample[] = [];
  private readonly faults: Fault[] = [];
  private readonly figures: DayFigures[] = [];
  private readonly failures: string[] = [];
  /** Wall-time windows where history may have a gap, and where the beer may be off its profile. */
  private readonly gapsAllowed: Array<[number, number]> = [];
  private readonly offProfile: Array<[number, number]> = [];
  private readonly starting: Array<[number, number]> = [];

  constructor(private readonly o: SoakOptions) {
    this.plan = makePlan(o.days, o.dayHours * HOUR);
    this.dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-soak-'));
    this.disk = new SmallDisk(path.join(this.dir, 'disk'), o.diskSize);
    this.dataDir = path.join(this.disk.mountPoint, 'data');
  }

  /** Script time now. */
  private get now(): number {
    return this.runBase + this.uptimeMs;
  }

  async run(): Promise<SoakReport> {
    try {
      await this.setUp();
      let day = 0;
      for (const step of this.plan.steps) {
        if (this.done.has(step)) continue;
        while (step.at >= (day + 1) * this.plan.dayMs) {
          await this.until((day + 1) * this.plan.dayMs - 60_000);
          await this.endOfDay(day++);
        }
        await this.until(step.at);
        this.o.log(`${this.clockText()} ${step.kind}`);
        await this.runStep(step);
      }
      while (day < this.plan.days) {
        await this.until((day + 1) * this.plan.dayMs - 60_000);
        await this.endOfDay(day++);
      }
      this.finalChecks();
    } catch (e) {
      this.failures.push(
        `the run stopped: ${(e as Error).stack ?? e}\n--- service output (end) ---\n${this.svc.log.slice(-6000)}`,
      );
    } finally {
      await this.tearDown();
    }
    return this.report();
  }

  private async setUp(): Promise<void> {
    this.broker = new Broker(this.dir, await freePort());
    await this.broker.start();
    await this.receiver.start();
    this.svc = new SoakService({
      dir: this.dir,
      dataDir: this.dataDir,
      limitMs: this.o.limitMs,
      config: { hardware: 'sim', mqttUrl: this.broker.url, alerts: { webhook: { url: this.receiver.url } } },
    });
    this.wall = Date.now();
    await this.svc.start(this.wall, this.o.rate, simConfig(18, 18));
    await this.look();
    this.starting.push([this.wall - 60_000, this.wall + STARTING_MS]);
    const seed = JSON.parse(readFileSync(SEED, 'utf8'));
    const loaded = await this.svc.request('POST', 'blocks/backup/load', seed);
    if (loaded.failures?.length || loaded.warnings?.length)
      throw new Error(`the fermenter blocks did not load: ${JSON.stringify(loaded)}`);
    await this.look();
    this.profileStart = this.wall;
    this.profileBase = this.now;
    await this.svc.request('POST', 'blocks/create', {
      id: 'Fermentation',
      type: 'SetpointProfile',
      data: {
        enabled: true,
        'targetId<>': 'Beer Setpoint',
        start: new Date(this.profileStart).toISOString(),
        points: this.plan.profile.map(([ms, degC]) => ({ time: q('s', ms / 1000), 'temperature[degC]': degC })),
      },
    });
  }

  private async tearDown(): Promise<void> {
    await this.svc?.kill().catch(() => undefined);
    await this.broker?.stop().catch(() => undefined);
    await this.receiver.stop().catch(() => undefined);
    this.disk.unmount();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private clockText(): string {
    const h = this.now / HOUR;
    return `[day ${Math.floor(h / this.o.dayHours)} ${(h % this.o.dayHours).toFixed(2)} h, ${((Date.now() - this.realStart) / 1000).toFixed(0)} s real]`;
  }

  /** Reads the service's clocks (and acknowledges what alerts came, as a person would). */
  private async look(): Promise<void> {
    const s = await this.svc.request('GET', 'system/status');
    this.wall = Date.parse(s.clock.now);
    this.uptimeMs = s.uptime * 1000;
    while (this.acked < this.receiver.got.length) {
      const m = this.receiver.got[this.acked++]!;
      if (m.event === 'fired')
        await this.svc.request('POST', 'alerts/acknowledge', { key: m.key }).catch(() => undefined);
    }
  }

  /** Follows the service until script time `t`, sampling the beer and the profile on the way. */
  private async until(t: number): Promise<void> {
    for (;;) {
      await this.look();
      if (this.now >= this.nextSampleAt) {
        // On a 5-minute grid of script time: a look that comes late (one step of this loop is a
        // minute or two of script time at the clock's full rate, more on a machine that keeps
        // that rate) does not push every later sample back; slots passed while the service was
        // down are skipped, not made up in a burst.
        while (this.nextSampleAt <= this.now) this.nextSampleAt += SAMPLE_EVERY_MS;
        await this.sample();
      }
      if (this.now >= t) return;
      await realSleep(40);
    }
  }

  private async read(id: string): Promise<any> {
    return (await this.svc.request('POST', 'blocks/read', { id })).data;
  }

  private async sample(): Promise<void> {
    const [beer, setpoint] = await Promise.all([this.read(this.beerId), this.read('Beer Setpoint')]);
    const toC = (v: number | null, unit: string) => (v === null ? null : unit === 'degF' ? (v - 32) / 1.8 : v);
    const expected = profileAt(this.plan.profile, this.now - this.profileBase);
    this.samples.push({
      wall: this.wall,
      script: this.now,
      beer: toC(beer.value.value, beer.value.unit),
      setting: toC(setpoint.setting.value, setpoint.setting.unit),
      expected,
    });
  }

  private async runStep(step: Step): Promise<void> {
    const from = this.wall;
    const fault = (expect: string | null, end = this.wall) => {
      this.faults.push({ kind: step.kind, from, to: end, expect });
    };
    switch (step.kind) {
      case 'restart':
        await this.restart('stop', DOWN_MS);
        this.gapsAllowed.push([from, this.wall + 5 * 60_000]);
        return;
      case 'backup': {
        const saved = await this.svc.request('POST', 'blocks/backup/save');
        const before = await this.svc.request('POST', 'blocks/all/read', undefined);
        const loaded = await this.svc.request('POST', 'blocks/backup/load', saved);
        if (loaded.failures?.length || loaded.warnings?.length)
          this.failures.push(`backup: its own fresh backup loaded with ${JSON.stringify(loaded)}`);
        const after = await this.svc.request('POST', 'blocks/all/read', undefined);
        const ids = (list: any[]) => list.map((b) => `${b.nid}:${b.id}:${b.type}`).sort();
        if (JSON.stringify(ids(before)) !== JSON.stringify(ids(after)))
          this.failures.push(`backup: the blocks differ after loading the backup just saved`);
        return fault(null);
      }
      case 'unplug': {
        await this.svc.request('POST', 'sim/devices/beer/unplug');
        await this.until(step.at + step.durationMs);
        await this.svc.request('POST', 'sim/devices/beer/plug');
        await this.look();
        // An unplugged sensor has no values to store.
        this.gapsAllowed.push([from, this.wall + 60_000]);
        fault('sensor-null');
        this.offProfile.push([from, this.wall + RECOVERY_MS]);
        return;
      }
      case 'units': {
        await this.setUnits('degF');
        const beer = await this.read(this.beerId);
        if (beer.value.unit !== 'degF')
          this.failures.push(`units: after the switch to degF the beer reads in ${beer.value.unit}`);
        await this.until(step.at + step.durationMs);
        await this.setUnits('degC');
        return fault(null);
      }
      case 'rename': {
        const desired = 'Beer "Main" Probe';
        await this.svc.request('POST', 'blocks/rename', { existing: this.beerId, desired });
        this.beerId = desired;
        const pair = await this.read('Beer Setpoint');
        if (pair.sensorId.id !== desired)
          this.failures.push(`rename: the setpoint links ${JSON.stringify(pair.sensorId.id)}, not the new name`);
        return fault(null);
      }
      case 'kill':
        await this.restart('kill', KILL_DOWN_MS);
        this.gapsAllowed.push([from - 2 * 60_000, this.wall + 5 * 60_000]);
        return fault('unclean-stop');
      case 'broker':
        await this.broker.stop();
        await this.until(step.at + step.durationMs);
        await this.broker.start();
        await this.look();
        return fault('broker-unreachable');
      case 'disk-full': {
        this.disk.fill();
        const end = step.at + step.durationMs;
        // The daily restarts inside go on, on the full disk.
        for (const r of this.plan.steps)
          if (r.kind === 'restart' && r.at > step.at && r.at < end) {
            this.done.add(r);
            await this.until(r.at);
            this.o.log(`${this.clockText()} restart (disk full)`);
            await this.restart('stop', DOWN_MS);
          }
        await this.until(end);
        this.disk.free();
        await this.look();
        this.gapsAllowed.push([from, this.wall + 5 * 60_000]);
        fault('disk-full');
        return;
      }
      case 'boot-behind': {
        // A Pi without a real-time clock boots at its last saved time, days behind; network time then puts it right.
        await this.restart('stop', DOWN_MS, -step.durationMs);
        await this.until(this.now + 5 * 60_000);
        const behind = await this.svc.request('GET', 'system/status');
        if (!behind.clock?.behind) this.failures.push(`boot-behind: status does not say the clock is behind`);
        await this.jump(step.durationMs);
        this.gapsAllowed.push([from, this.wall + 5 * 60_000]);
        return fault(null);
      }
      case 'clock-back':
        await this.jump(-step.durationMs);
        // History holds its points until the clock is past the newest time it stored (an hour).
        this.gapsAllowed.push([this.wall - 60_000, this.wall + step.durationMs + 5 * 60_000]);
        return fault(null);
    }
  }

  private async setUnits(temperature: 'degC' | 'degF'): Promise<void> {
    await this.svc.request('POST', '/history/datastore/set', {
      value: { namespace: 'edge-one', id: 'units', temperature },
    });
  }

  /** Moves the service's wall clock by `byMs` while it runs and checks that it says so. */
  private async jump(byMs: number): Promise<void> {
    await this.look();
    this.svc.setClock({ rate: this.o.rate, jumpBy: byMs });
    await this.svc.clockApplied(this.o.limitMs);
    const deadline = Date.now() + this.o.limitMs;
    for (;;) {
      const s = await this.svc.request('GET', 'system/status');
      const jump = s.clock?.lastJump;
      if (jump && Math.abs(jump.byMs - byMs) < 60_000) break;
      if (Date.now() > deadline) {
        this.failures.push(`clock: a jump of ${byMs} ms is not in system/status (${JSON.stringify(s.clock)})`);
        break;
      }
      await realSleep(50);
    }
    await this.look();
  }

  /** Stops (SIGTERM) or kills the service and starts it `downMs` later, its wall clock off by `wallOffMs`. */
  private async restart(how: 'stop' | 'kill', downMs: number, wallOffMs = 0): Promise<void> {
    const plant = await this.svc.request('GET', 'sim/plant');
    await this.look();
    const end = this.now;
    if (how === 'kill') await this.svc.kill();
    else {
      const code = await this.svc.stop();
      if (code !== 0) this.failures.push(`restart: the service exited with ${code} on SIGTERM`);
    }
    this.runBase = end + downMs;
    this.uptimeMs = 0;
    // The emulated fermenter does not outlive the process: it starts where it was.
    await this.svc.start(this.wall + downMs + wallOffMs, this.o.rate, simConfig(plant.beer, plant.air));
    await this.look();
    // A start reads its sensors anew: no value for a moment.
    this.starting.push([this.wall - 60_000, this.wall + STARTING_MS]);
  }

  private async endOfDay(day: number): Promise<void> {
    await this.look();
    const figures: DayFigures = {
      day,
      realSeconds: Math.round((Date.now() - this.realStart) / 1000),
      uptimeHours: Number((this.uptimeMs / HOUR).toFixed(2)),
      rssBytes: this.svc.rssBytes(),
      ...dataSizes(this.dataDir),
    };
    this.figures.push(figures);
    const mb = (b: number | null) => (b === null ? '-' : `${(b / 1048576).toFixed(2)} MB`);
    this.o.log(
      `${this.clockText()} end of day ${day}: RSS ${mb(figures.rssBytes)}, db ${mb(figures.dbBytes)}, history ${mb(figures.historyBytes)}, backups ${mb(figures.backupsBytes)}, alerts sent ${this.receiver.got.length}`,
    );
    const [dayStart, dayEnd] = daySpan(this.samples, day * this.plan.dayMs, this.plan.dayMs, this.wall);
    const gaps = await historyGaps(this.svc, this.beerFields(), dayStart, dayEnd, this.gapsAllowed);
    for (const g of gaps) this.failures.push(`history (day ${day}): ${g}`);
    for (const f of checkAlerts(this.receiver.got, this.faults, false)) this.failures.push(`alerts (day ${day}): ${f}`);
  }

  private beerFields(): string[] {
    const ids = ['Beer Sensor', 'Beer "Main" Probe'];
    return ids.flatMap((id) => [`edge-one/${id}/value[degC]`, `edge-one/${id}/value[degF]`]);
  }

  private finalChecks(): void {
    for (const f of checkAlerts(this.receiver.got, this.faults, true)) this.failures.push(`alerts: ${f}`);
    // Around a full disk history's size dips and comes back: those days are not compared for growth.
    const disturbed = new Set<number>();
    for (const step of this.plan.steps)
      if (step.kind === 'disk-full')
        for (let d = Math.floor(step.at / this.plan.dayMs); d <= (step.at + step.durationMs) / this.plan.dayMs + 1; d++)
          disturbed.add(d);
    for (const f of checkGrowth(this.figures, disturbed)) this.failures.push(`growth: ${f}`);
    for (const f of checkControl(this.samples, this.offProfile, this.starting)) this.failures.push(f);
  }

  private report(): SoakReport {
    const alertsSent: Record<string, number> = {};
    for (const m of this.receiver.got) {
      const k = `${m.event} ${m.condition}`;
      alertsSent[k] = (alertsSent[k] ?? 0) + 1;
    }
    return {
      days: this.o.days,
      dayHours: this.o.dayHours,
      realSeconds: Math.round((Date.now() - this.realStart) / 1000),
      figures: this.figures,
      faults: this.faults,
      alertsSent,
      worstDeviation: worstDeviation(this.samples, this.offProfile),
      samples: this.samples.length,
      failures: this.failures,
    };
  }
}

export function runSoak(options: Partial<SoakOptions> = {}): Promise<SoakReport> {
  return new SoakRun({ ...SOAK_DEFAULTS, ...options }).run();
}

export { DAY };
