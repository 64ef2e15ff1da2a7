// The alerts subsystem: conditions -> tracker -> history, log, outbox -> channels (the kinds in
// channels/index.ts, in force from the config file or the dashboard: channel-store.ts); the MQTT
// list. The constructor only wires; start() begins watching.
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from '../log.js';
import type { AppMqtt } from '../mqtt/index.js';
import { systemTimers, type ClockJump, type Timers } from '../runtime/clock.js';
import type { BlockRuntime, ChangeEvent } from '../runtime/runtime.js';
import type { Db } from '../store/db.js';
import { isStorageFailure } from '../shared/errors.js';
import type { DamagedDatabase } from '../store/salvage.js';
import type { StorageHealth } from '../store/storage-health.js';
import type { DocumentStore, Doc } from '../store/documents.js';
import { ChannelStore } from './channel-store.js';
import type { Channel, ChannelContext } from './channels/types.js';
import { ActiveReserve, RESERVE_FILE, SENT_RESERVE_BYTES, SENT_RESERVE_FILE } from './active-reserve.js';
import { ReserveFile } from '../store/reserve-file.js';
import { MqttAlerts } from './channels/mqtt.js';
import { Conditions, type ConditionSources } from './conditions.js';
import { renamedIn, unwatchedPending, watched } from './block-alerts.js';
import { BlockIds } from './block-ids.js';
import { alertMessage, testMessage } from './messages.js';
import { Outbox } from './outbox.js';
import { alertRoutes } from './routes.js';
import type { AlertsApi } from './routes-api.js';
import { RULES_DOC_ID, type Rules } from './rules.js';
import { RulesInForce } from './rules-in-force.js';
import { CheckSchedule } from './check-schedule.js';
import type { AlertSettings } from './settings.js';
import { markRunning, markStopped } from './running-mark.js';
import { PendingStore } from './pending-record.js';
import { AlertStore } from './store.js';
import { fromWall, RuntimeAlertClock, toWall } from './times.js';
import { Tracker } from './tracker.js';
import { CONDITION_TITLES, type ActiveAlert, type AlertEnd, type AlertEventKind, type HistoryEntry } from './types.js';

export { parseAlertSettings, type AlertSettings } from './settings.js';

export interface AlertsDeps extends Omit<ConditionSources, 'runtime'> {
  settings: AlertSettings;
  serviceId: string;
  topicRoot: string;
  homeAssistant: boolean;
  version: string;
  db: Db;
  documents: DocumentStore;
  runtime: BlockRuntime;
  log: Logger;
  /** Timers on the runtime's clock, for the fallback check (default: the system's). */
  timers?: Timers;
  /** What was saved of a damaged database file at this start (src/store/salvage.ts), or null. */
  damagedDatabase?: () => DamagedDatabase | null;
  /** Called once the damaged database is told of (its alert recorded, or service alerts off). */
  damagedDatabaseReported?: () => void;
  /** Notes a write failing on the storage: full (507s) or refusing writes (503s); one log line, status. */
  storage?: Pick<StorageHealth, 'noteError' | 'full' | 'refusedError'>;
}

export class Alerts implements AlertsApi {
  readonly store: AlertStore;
  readonly outbox: Outbox;
  readonly channelStore: ChannelStore;
  private channels: Channel[];
  private started = false;
  private readonly tracker: Tracker;
  private readonly conditions: Conditions;
  private mqttAlerts: MqttAlerts | null = null;
  /** The rules in force: the config's, under the rules document (rules-in-force.ts). */
  private readonly ruleDoc: RulesInForce;
  /** When the conditions are evaluated: on control-loop ticks, a timer as the fallback (check-schedule.ts). */
  private readonly schedule: CheckSchedule;
  private readonly cleanups: Array<() => void> = [];
  private readonly blockIds = new BlockIds();
  private uncleanStop = false;
  /** Monotonic for every duration; wall time only for what a person reads (times.ts). */
  private readonly clock: RuntimeAlertClock;

  constructor(private readonly d: AlertsDeps) {
    const s = d.settings;
    this.clock = new RuntimeAlertClock(d.runtime.clock);
    this.store = new AlertStore(
      d.db,
      s.historyLimit,
      (e) => d.storage?.noteError(e) ?? isStorageFailure(e),
      new ActiveReserve(path.join(d.dataDir, RESERVE_FILE)),
      new ReserveFile(path.join(d.dataDir, SENT_RESERVE_FILE), SENT_RESERVE_BYTES, 'the alerts sent but not deleted'),
      this.clock,
    );
    this.ruleDoc = new RulesInForce(d);
    this.channelStore = new ChannelStore(d.db, s, d.log);
    this.channels = this.createChannels();
    this.outbox = new Outbox({
      store: this.store,
      channels: this.channels,
      log: d.log,
      retryBaseMs: s.retryBaseMs,
      retryMaxMs: s.retryMaxMs,
      limit: s.outboxLimit,
      maxAgeMs: s.maxAgeHours * 3600_000,
      record: (e) => this.record(e),
      now: () => {
        d.runtime.checkClock();
        return this.clock.wall();
      },
    });
    const pending = new PendingStore(
      d.db,
      d.runtime.clock,
      (e) => d.storage?.noteError(e) ?? isStorageFailure(e),
      (problem) => d.log.warn(problem),
    );
    this.tracker = new Tracker({
      remindMs: () => this.ruleDoc.rules.remindHours * 3600_000,
      load: () => this.store.loadActive().map((a) => fromWall(a, this.clock)),
      save: (a) => this.store.saveActive(toWall(a, this.clock)),
      remove: (key) => this.store.removeActive(key),
      emit: (event, alert, ended) => this.onEvent(event, alert, ended),
      pending: { load: () => pending.load(), save: (s, r, now) => pending.save(s, r, now) },
    });
    this.conditions = new Conditions({ ...d, runtime: d.runtime });
    this.schedule = new CheckSchedule(d.timers ?? systemTimers, this.clock, s.checkIntervalMs, () => this.evaluate());
  }

  private createChannels(): Channel[] {
    const ctx: ChannelContext = {
      timeoutMs: this.d.settings.sendTimeoutMs,
      controlRuns: () => this.d.controlEnabled() && !this.d.runtime.paused,
      log: this.d.log,
    };
    return this.channelStore.inForce().map((c) => c.def.create(c.settings, ctx));
  }

  /** The channels in force changed: close the running ones and start the new set. */
  private async reloadChannels(): Promise<void> {
    const old = this.channels;
    this.channels = this.createChannels();
    this.outbox.setChannels(this.channels);
    if (this.started) for (const c of this.channels) c.start?.();
    for (const c of old) await c.close?.();
  }

  /** Set up or replace a dashboard channel (PUT /alerts/channels/<name>); throws SchemaError or a channel error. */
  saveChannel(name: string, input: Record<string, unknown>): void {
    this.channelStore.save(name, input);
    this.d.log.info({ channel: name }, `alert channel ${name} set up from the dashboard`);
    void this.reloadChannels();
  }

  removeChannel(name: string): void {
    this.channelStore.remove(name);
    this.d.log.info({ channel: name }, `alert channel ${name} removed from the dashboard`);
    void this.reloadChannels();
  }

  /** Routes under the controller prefix: GET /alerts, POST /alerts/test, /alerts/acknowledge, GET|PUT /alerts/rules. */
  routes(): FastifyPluginAsync {
    return alertRoutes(this);
  }

  attachMqtt(mqtt: AppMqtt): void {
    if (!this.d.settings.mqtt) return;
    this.mqttAlerts = new MqttAlerts({
      mqtt,
      topicRoot: this.d.topicRoot,
      serviceId: this.d.serviceId,
      homeAssistant: this.d.homeAssistant,
      version: this.d.version,
      active: () => this.active(),
    });
  }

  /** Home Assistant discovery cleared a config of ours under the legacy node (`alert_<kind>`): its binary_sensor's config goes out again. */
  homeAssistantConfigCleared(objectId: string): void {
    this.mqttAlerts?.republishConfig(objectId);
  }

  /** Home Assistant asked for the whole device again (its birth message): the binary_sensors' configs go out again. */
  homeAssistantAnnounceAgain(): void {
    this.mqttAlerts?.announceConfigs();
  }

  start(): void {
    this.uncleanStop = markRunning(this.d.dataDir, this.d.db);
    const onDocs = (docs: Doc[]) =>
      docs.some((doc) => this.ruleDoc.isRulesKey(doc.namespace, doc.id)) && this.ruleDoc.load();
    const onDeleted = (keys: string[]) => keys.includes(`${this.d.serviceId}:${RULES_DOC_ID}`) && this.ruleDoc.load();
    this.d.documents.on('changed', onDocs);
    this.d.documents.on('deleted', onDeleted);
    const onChange = (ev: ChangeEvent) => this.followBlocks(ev);
    this.d.runtime.on('change', onChange);
    // Stored wall times are made again after a jump, or a clock set from 1970 (at the start too: times.ts).
    const onClock = (wall: number, jump?: ClockJump) => {
      if (jump) this.store.shiftTimes(jump.byMs);
      else this.store.placeUnset(this.clock.setBy(wall), wall);
      this.tracker.storeAgain();
      this.outbox.clockJumped();
      this.mqttAlerts?.publish();
    };
    const onJump = (jump: ClockJump) => onClock(jump.at, jump);
    const onClockSet = (wall: number) => onClock(wall);
    this.d.runtime.on('clockJump', onJump);
    this.d.runtime.on('clockSet', onClockSet);
    // The control loop wakes at least once a second; the conditions are evaluated in its wake-up
    // (after the blocks ran) instead of in one of their own. The timer is the fallback for when
    // no tick comes (control disabled), set again on every tick (check-schedule.ts).
    const onTick = () => this.schedule.onTick();
    this.d.runtime.on('tick', onTick);
    this.cleanups.push(
      () => this.d.documents.off('changed', onDocs),
      () => this.d.documents.off('deleted', onDeleted),
      () => this.d.runtime.off('change', onChange),
      () => this.d.runtime.off('tick', onTick),
      () => this.d.runtime.off('clockJump', onJump),
      () => this.d.runtime.off('clockSet', onClockSet),
    );
    this.blockIds.start(this.d.runtime.blocks());
    this.mqttAlerts?.start();
    if (this.d.runtime.clock.wall() !== null) onClock(this.d.runtime.clock.wall()!);
    this.outbox.start();
    this.started = true;
    for (const c of this.channels) c.start?.();
    if (this.uncleanStop && this.ruleDoc.rules.service.enabled) {
      this.tracker.fireOnce(
        {
          key: 'unclean-stop',
          kind: 'unclean-stop',
          text: 'The service started after an unclean stop (a crash, kill -9, power loss or a watchdog restart); outputs were uncontrolled meanwhile',
        },
        this.clock.now(),
      );
    }
    this.fireDamagedDatabase();
    this.schedule.armFallback();
  }

  private fireDamagedDatabase(): void {
    const damaged = this.d.damagedDatabase?.();
    if (!damaged) return;
    if (!this.ruleDoc.rules.service.enabled) return void this.d.damagedDatabaseReported?.();
    const lost = damaged.incomplete.length
      ? `rows were lost from ${damaged.incomplete.join(', ')}: load a stored backup to get them back`
      : 'every row could be read';
    this.tracker.fireOnce(
      {
        key: 'database-damaged',
        kind: 'database-damaged',
        text: `The database was damaged (${damaged.reason}) and was set aside as ${path.basename(damaged.keptAs)}; ${lost}`,
        values: { keptAs: damaged.keptAs, incomplete: damaged.incomplete },
      },
      this.clock.now(),
    );
    this.d.damagedDatabaseReported?.();
  }

  async stop(): Promise<void> {
    this.schedule.stop();
    if (this.started) this.tracker.savePending(this.clock.now());
    this.started = false;
    this.mqttAlerts?.stop();
    for (const c of this.cleanups.splice(0)) c();
    await this.outbox.stop();
    for (const c of this.channels) await c.close?.();
    markStopped(this.d.dataDir);
  }

  evaluate(now = this.clock.now()): void {
    try {
      const rules = this.ruleDoc.rules;
      this.tracker.unwatched((a) => watched(a, rules));
      const { seen, unknown, ended, dropped } = this.conditions.evaluate(rules, (key) => this.tracker.get(key));
      this.tracker.ended(ended);
      this.tracker.drop(dropped);
      this.tracker.drop(unwatchedPending(this.tracker.pendingKeys(), rules));
      this.tracker.update(seen, now, rules.resolveAfter * 1000, unknown);
    } catch (e) {
      this.d.log.error({ err: e }, 'alert evaluation failed');
    }
  }

  /** Active alerts, their times as wall-clock epoch ms. */
  active(): ActiveAlert[] {
    return this.tracker.list().map((a) => toWall(a, this.clock));
  }

  history(): HistoryEntry[] {
    return this.store.history();
  }

  acknowledge(key: string): boolean {
    return this.tracker.acknowledge(key);
  }

  /** A test message to every channel that takes messages, or to the one named (the heartbeat: one call), outside the outbox. */
  async sendTest(only?: string): Promise<{ channel: string; ok: boolean; answer: string }[]> {
    const message = testMessage(this.d.serviceId, Date.now());
    const targets = this.channels.filter((c) => (only ? c.name === only : c.send));
    const results = await Promise.all(
      targets.map(async (c) => {
        try {
          return { channel: c.name, ok: true, answer: await c.test(message) };
        } catch (e) {
          return { channel: c.name, ok: false, answer: (e as Error).message };
        }
      }),
    );
    for (const r of results)
      this.record({
        at: new Date().toISOString(),
        event: r.ok ? 'delivered' : 'failed',
        key: 'test',
        messageId: message.id,
        channel: r.channel,
        text: `test message ${r.ok ? 'delivered' : 'not delivered'} to ${r.channel}: ${r.answer}`,
      });
    return results;
  }

  currentRules(): { rules: Rules; document: Record<string, unknown> | null; error: string | null } {
    return this.ruleDoc.current();
  }

  /** Validate and store the rules document; throws SchemaError naming the field. */
  setRules(input: Record<string, unknown>): Rules {
    return this.ruleDoc.set(input);
  }

  status(): Record<string, unknown> {
    const active = this.active();
    return {
      active: active.length,
      // What the dashboard's banner says, with each status event (a short list: one per condition).
      list: active.map((a) => ({
        key: a.key,
        kind: a.kind,
        title: CONDITION_TITLES[a.kind],
        blockId: a.blockId ?? null,
        text: a.text,
        since: new Date(a.firstSeenAt).toISOString(),
        // The service was stopped meanwhile for a time the clock did not show: since then or before.
        ...(a.stopUnknown ? { stopUnknown: true } : {}),
        count: a.count,
        acknowledged: a.acknowledged,
      })),
      channels: this.outbox.channelNames,
      mqtt: this.mqttAlerts !== null,
      outbox: { pending: this.store.pending(), limit: this.d.settings.outboxLimit, ...this.outbox.counts },
      counters: Object.fromEntries(this.channels.flatMap((c) => (c.status ? [[c.name, c.status()]] : []))),
      rulesError: this.ruleDoc.error,
    };
  }

  /** A block's alert settings and active alerts follow its rename and go away with its delete. */
  private followBlocks(ev: ChangeEvent): void {
    const { renames, deleted } = this.blockIds.follow(
      ev,
      (id) => this.d.runtime.find(id) !== undefined,
      (before, after) => this.tracker.renamed((a) => renamedIn(a, before, after)),
    );
    this.ruleDoc.followBlocks(renames, deleted);
    // A deleted block's alert ends now, told as deleted: nothing came back (tracker.ts).
    if (deleted.length) this.tracker.deleted(new Set(deleted));
  }

  private onEvent(event: AlertEventKind, alert: ActiveAlert, ended?: AlertEnd): void {
    const message = alertMessage(this.d.serviceId, event, alert, this.clock.now(), this.clock.wall(), ended);
    this.record({
      at: message.at,
      event,
      key: alert.key,
      messageId: message.id,
      text: `${message.title}: ${message.message}`,
    });
    if (event !== 'acknowledged') this.outbox.enqueue(message);
    this.mqttAlerts?.publish();
  }

  private record(entry: HistoryEntry): void {
    this.store.addHistory(entry);
    // Drops are logged by the outbox, one line a minute at most: a full outbox cannot flood the log.
    if (entry.event === 'dropped') return;
    const fields = {
      alert: entry.key,
      event: entry.event,
      channel: entry.channel,
      messageId: entry.messageId,
      error: entry.error,
    };
    if (entry.event === 'fired' || entry.event === 'failed')
      this.d.log.warn(fields, `alert ${entry.event}: ${entry.text}`);
    else this.d.log.info(fields, `alert ${entry.event}: ${entry.text}`);
  }
}
