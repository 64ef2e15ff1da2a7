// The conditions, read from the runtime's blocks and the services' own status (never through
// the API). Each evaluation lists the problems seen now, and the conditions not known yet (a
// device not searched for or read since the start); tracker.ts turns them into alerts.
import { formatQuantity } from '../codec/units.js';
import { DISK_FULL_DROP, type StoreHealth } from '../history/store.js';
import { DISK_RECHECK_MS, diskSpace } from '../store/storage-health.js';
import { i2cChipKey } from '../runtime/hardware.js';
import { implementsIface, readingPending, type AnyBlock } from '../runtime/types.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import type { Rules, BlockRule } from './rules.js';
import { noSetting } from './no-setting.js';
import { sequenceError } from './sequence-error.js';
import { disabled, notUpdated, unwatchedDropped } from './block-alerts.js';
import type { ActiveAlert, Observation } from './types.js';

export interface ConditionSources {
  runtime: BlockRuntime;
  controlEnabled: () => boolean;
  /**
   * null with the embedded broker (it cannot be unreachable); 'connecting' until the first try
   * to connect since the start has ended: not known yet, so a start is no "unreachable".
   */
  brokerConnected: () => boolean | null | 'connecting';
  /** null without a history store. */
  historyOk: () => StoreHealth | null;
  /** The controller's own history points dropped lately: why; null when not (or without history). */
  historyDropping?: () => { reason: string; detail: string } | null;
  /**
   * Addresses of devices that blocks use and that are gone, and of those not known yet (the
   * first search or their first read since the start is to come); per bus, its short-circuit count.
   */
  hardware: () => {
    missing: string[];
    pending: string[];
    /** Of a missing device whose cause is known (another chip answers at its address): what it is. */
    reasons?: Record<string, string>;
    buses: { name: string; shortErrors: number }[];
  };
  dataDir: string;
  /** Whether writes to the data dir are failing for a full disk, or refused with room left (StorageHealth). */
  storage?: { readonly full: boolean; readonly refusedError: string | null };
  /** Another controller online on the broker with this one's service id (fleet/twin.ts): where its dashboard is. */
  sameServiceId?: () => { dashboardUrl: string | null } | null;
  /**
   * Datastore documents whose stored text went bad (left out of reads until written again), and
   * whether the units document is one of them (the units fell back to their defaults).
   */
  /** Damaged documents (keys), and damaged settings rows (what to tell of each). */
  damagedDocuments?: () => { keys: string[]; units: boolean; settings?: string[] } | null;
  /** With auth on, why the users file is not one (nobody can log in), or null. */
  usersFileDamaged?: () => string | null;
  /** This controller's service id, for the text of that alert. */
  serviceId?: string;
  /** Monotonic clock, ms (performance.now); for tests. */
  monotonic?: () => number;
}

/**
 * A disk fills over minutes: its free space is read at most this often, not on every check; but
 * every DISK_RECHECK_MS once a write has met a full disk or while the space is under the rule, so
 * the alert follows the first failed write, and its resolve the freed space, within seconds.
 */
export const DISK_CHECK_MS = 30_000;
export { DISK_RECHECK_MS };

type Data = Record<string, unknown>;

/**
 * How much closer to its setting a temperature out of band must come to count as on its way
 * (the out-of-band count starts again): above a probe's step (1/16 degC) and its jitter, and
 * below what a fermenter moves in the rule's time while it cools or warms as asked.
 */
export const APPROACH_DEGC = 0.1;

export interface Evaluation {
  /** The problems present now. */
  seen: Observation[];
  /** Keys of conditions whose state is not known yet: neither bad nor clear. */
  unknown: Set<string>;
  /**
   * Active alerts whose problem stands but is no longer watched (their block disabled, the PIDs on
   * a setpoint with no setting disabled), by key: why, said in the alert's end (Tracker.ended), not
   * "Back to normal".
   */
  ended: Map<string, string>;
  /** Problems no longer watched (their block disabled, or control, or their rule turned off) whose wait for their `after` is dropped (Tracker.drop). */
  dropped: Set<string>;
}

/**
 * The device a block names, as the hardware source lists it: a 1-Wire device by its ROM address,
 * an I2C chip by its bus and address (i2cChipKey). Null for a block without one.
 */
function deviceOf(data: Data): { key: string; text: string; address: string } | null {
  const { address, bus } = data;
  if (typeof address === 'string') return { key: address, text: `device ${address}`, address };
  if (typeof address !== 'number' || typeof bus !== 'string') return null;
  const key = i2cChipKey(bus, address);
  const hex = key.slice(bus.length + 1);
  return { key, text: `I2C chip ${hex} on bus ${bus}`, address: hex };
}

export class Conditions {
  private readonly shorts = new Map<string, number>();
  private disk: { at: number; freePercent: number | null } | null = null;

  constructor(private readonly s: ConditionSources) {}

  /** `active`: the alert active under a key, for the problems that end as no longer watched (ended). */
  evaluate(rules: Rules, active: (key: string) => ActiveAlert | undefined = () => undefined): Evaluation {
    const out: Observation[] = [];
    const unknown = new Set<string>();
    const ended = new Map<string, string>();
    const dropped = new Set<string>();
    const blockRule = (b: AnyBlock): BlockRule => rules.blocks[b.id] ?? {};
    const temp = (c: number | null | undefined) => this.formatTemp(c);
    const controlRuns = this.s.controlEnabled() && !this.s.runtime.paused;
    let reasons: Record<string, string> | undefined;
    // What the hardware knows of a sensor's device that reads nothing (its replies fail their CRC).
    const reasonOf = (data: Data): string | null => {
      const device = deviceOf(data);
      reasons ??= this.s.hardware().reasons ?? {};
      const reason = device && reasons[device.key];
      return reason ? `it (${device.text}) ${reason}` : null;
    };
    for (const b of this.s.runtime.blocks()) {
      const rule = blockRule(b);
      unwatchedDropped(b, rules, dropped);
      if (rule.enabled === false) continue;
      const data = b.data as Data;
      if (data.enabled === false) {
        disabled(b, active, ended, dropped);
        continue;
      }
      if (!controlRuns) {
        notUpdated(b, active, unknown, dropped);
        continue;
      }
      if (
        rules.sensorNull.enabled &&
        implementsIface(b.def, 'TempSensorInterface') &&
        'value' in data &&
        data.value === null
      ) {
        const after = rule.after ?? rules.sensorNull.after;
        const why = readingPending(b) ? null : reasonOf(data);
        if (readingPending(b)) unknown.add(`sensor-null:${b.nid}`);
        else
          out.push({
            key: `sensor-null:${b.nid}`,
            kind: 'sensor-null',
            blockId: b.id,
            after,
            tolerateGaps: true,
            text: why
              ? `${b.id} reads no value for more than ${after} s: ${why}`
              : `${b.id} reads no value (disconnected or failing) for more than ${after} s`,
            values: { value: null },
          });
      }
      if (
        rules.setpointBand.enabled &&
        b.def.type === 'SetpointSensorPair' &&
        data.enabled === true &&
        typeof data.value === 'number' &&
        typeof data.setting === 'number'
      ) {
        const band = rule.band ?? rules.setpointBand.band;
        const after = rule.after ?? rules.setpointBand.after;
        const off = data.value - data.setting;
        if (Math.abs(off) > band) {
          out.push({
            key: `setpoint-band:${b.nid}`,
            kind: 'setpoint-band',
            blockId: b.id,
            after,
            tolerateGaps: true,
            text: `${b.id} is ${temp(data.value)}, setting ${temp(data.setting)}: further than ${this.formatDelta(band)} and not getting closer for more than ${after} s`,
            values: { value: data.value, setting: data.setting, band },
            // A beer on its way to a new setting (a profile's step, a cold crash, a setting typed)
            // is no alert while the gap keeps closing; one that stops short, drifts away, or moves
            // slower than a ramping setting (the gap widens though the beer moves its way) is.
            progress: { toward: off > 0 ? 'down' : 'up', reached: -Math.abs(off), by: APPROACH_DEGC },
          });
        }
      }
      if (rules.noSetting.enabled && b.def.type === 'SetpointSensorPair')
        noSetting(this.s.runtime, b, active, rules.noSetting.after, { seen: out, unknown, ended });
      if (rules.sequenceError.enabled && b.def.type === 'Sequence')
        sequenceError(b, rule.after ?? rules.sequenceError.after, { seen: out, unknown });
      if (
        rules.outputOn.enabled &&
        implementsIface(b.def, 'ActuatorDigitalInterface') &&
        data.state === 'STATE_ACTIVE'
      ) {
        const after = rule.onAfter ?? rules.outputOn.after;
        if (after > 0)
          out.push({
            key: `output-on:${b.nid}`,
            kind: 'output-on',
            blockId: b.id,
            after,
            tolerateGaps: false,
            text: `${b.id} has been on without a break for more than ${after} s`,
            values: { state: data.state },
          });
      }
    }
    if (rules.hardware.enabled) this.hardware(out, unknown, rules.hardware.after);
    if (rules.service.enabled) this.service(out, unknown, rules);
    return { seen: out, unknown, ended, dropped };
  }

  private hardware(out: Observation[], unknown: Set<string>, missingAfter: number): void {
    const hw = this.s.hardware();
    const missing = new Set(hw.missing);
    const pending = new Set(hw.pending);
    if (missing.size > 0 || pending.size > 0)
      for (const b of this.s.runtime.blocks()) {
        // A missing sensor is the sensor-null alert, which names its value; this one is for IO modules.
        const device = implementsIface(b.def, 'TempSensorInterface') ? null : deviceOf(b.data as Data);
        if (!device) continue;
        if (pending.has(device.key)) {
          unknown.add(`device-missing:${device.key}`);
          continue;
        }
        if (!missing.has(device.key)) continue;
        out.push({
          key: `device-missing:${device.key}`,
          kind: 'device-missing',
          blockId: b.id,
          after: missingAfter,
          // A single missed read resolves before its `after`; misses that keep coming within the
          // rule's resolveAfter are one alert with a count, as a flapping sensor's are.
          tolerateGaps: true,
          text: `${b.id} (${device.text}) ${hw.reasons?.[device.key] ?? 'is missing from its bus'}`,
          values: { address: device.address },
        });
      }
    for (const bus of hw.buses) {
      const before = this.shorts.get(bus.name);
      this.shorts.set(bus.name, bus.shortErrors);
      if (before !== undefined && bus.shortErrors > before) {
        out.push({
          key: `bus-short:${bus.name}`,
          kind: 'bus-short',
          after: 0,
          tolerateGaps: true,
          text: `1-Wire bus ${bus.name} reports a short circuit (${bus.shortErrors} so far)`,
          values: { bus: bus.name, shortErrors: bus.shortErrors },
        });
      }
    }
  }

  private service(out: Observation[], unknown: Set<string>, rules: Rules): void {
    const after = rules.service.unreachableAfter;
    if (!this.s.controlEnabled())
      out.push({
        key: 'control-disabled',
        kind: 'control-disabled',
        after: 0,
        tolerateGaps: false,
        text: 'Control is disabled: every output is in its safe state',
      });
    const broker = this.s.brokerConnected();
    if (broker === 'connecting') unknown.add('broker-unreachable');
    else if (broker === false)
      out.push({
        key: 'broker-unreachable',
        kind: 'broker-unreachable',
        after,
        tolerateGaps: false,
        text: `The MQTT broker has been unreachable for more than ${after} s`,
      });
    const documents = this.s.damagedDocuments?.() ?? null;
    const keys = documents?.keys ?? [];
    const settings = documents?.settings ?? [];
    if (keys.length || settings.length)
      out.push({
        key: 'document-damaged',
        kind: 'document-damaged',
        after: 0,
        tolerateGaps: true,
        text: [
          ...(keys.length
            ? [
                `${keys.length === 1 ? 'A stored document is' : `${keys.length} stored documents are`} damaged in the database (${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', ...' : ''}): left out until written again; a stored backup (backups/) holds ${keys.length === 1 ? 'it as it was' : 'them as they were'}${documents?.units ? '. The units document is one: temperatures are shown and bare numbers read in °C until the units are set again' : ''}`,
              ]
            : []),
          ...settings.map((s) => s.charAt(0).toUpperCase() + s.slice(1)),
        ].join('. '),
        values: { documents: keys.length, settings: settings.length },
      });
    const usersFile = this.s.usersFileDamaged?.() ?? null;
    if (usersFile)
      out.push({
        key: 'users-file-damaged',
        kind: 'users-file-damaged',
        after: 0,
        tolerateGaps: true,
        text: `${usersFile}: nobody can log in until it is fixed or removed (then edgeblocks user add NAME); control goes on`,
      });
    const twin = this.s.sameServiceId?.() ?? null;
    if (twin)
      out.push({
        key: 'service-id-taken',
        kind: 'service-id-taken',
        after: 0,
        tolerateGaps: true,
        text: `Another controller is online on the broker with this one's service id "${this.s.serviceId ?? ''}"${twin.dashboardUrl ? ` (its dashboard: ${twin.dashboardUrl})` : ''}: both take the block commands sent to it and publish state and history under it. Give one of them its own serviceId (a copy of an SD card keeps the config)`,
      });
    const history = this.s.historyOk();
    // A full data disk is one alert, disk-full: the history store failing on it, and the points
    // it drops meanwhile, are not two more.
    if (history && !history.ok && !history.diskFull)
      out.push({
        key: 'history-unreachable',
        kind: 'history-unreachable',
        after,
        tolerateGaps: false,
        text: `The history store has been failing for more than ${after} s: ${history.error ?? 'unknown error'}`,
      });
    const dropping = this.s.historyDropping?.() ?? null;
    if (dropping && dropping.reason !== DISK_FULL_DROP)
      out.push({
        key: 'history-dropped',
        kind: 'history-dropped',
        after: 0,
        tolerateGaps: true,
        text: `The controller's own history points are being dropped (${dropping.reason}): ${dropping.detail}`,
        values: { reason: dropping.reason },
      });
    const refused = this.s.storage?.refusedError ?? null;
    if (refused !== null)
      out.push({
        key: 'storage-refused',
        kind: 'storage-refused',
        // Past a probe write or two: one brief I/O error is not worth a page on every channel.
        after: (2 * DISK_RECHECK_MS) / 1000,
        tolerateGaps: true,
        text: `The data directory refuses writes (read-only or failing: ${refused}): changes are not stored; control goes on from memory`,
      });
    const free = this.freePercent(
      rules.service.diskFreePercent,
      history?.diskFull === true || this.s.storage?.full === true,
    );
    if (free !== null && free < rules.service.diskFreePercent) {
      out.push({
        key: 'disk-full',
        kind: 'disk-full',
        after: 0,
        tolerateGaps: true,
        text: `The data disk is nearly full: ${free.toFixed(1)} % free (alert below ${rules.service.diskFreePercent} %)`,
        values: { freePercent: Number(free.toFixed(2)) },
      });
    }
  }

  private freePercent(rulePercent: number, writesFailing: boolean): number | null {
    const now = this.s.monotonic ? this.s.monotonic() : performance.now();
    const low = this.disk?.freePercent != null && this.disk.freePercent < rulePercent;
    const every = low || writesFailing ? DISK_RECHECK_MS : DISK_CHECK_MS;
    if (!this.disk || now - this.disk.at >= every) {
      const space = diskSpace(this.s.dataDir);
      this.disk = { at: now, freePercent: space?.freePercent ?? null };
    }
    return this.disk.freePercent;
  }

  private formatTemp(c: number | null | undefined): string {
    return typeof c === 'number' ? formatQuantity(c, 'temp', this.s.runtime.units) : 'null';
  }

  private formatDelta(c: number): string {
    return formatQuantity(c, 'deltaTemp', this.s.runtime.units);
  }
}
