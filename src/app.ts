// Composition root. The app is an ordered list of subsystems (src/app/lifecycle.ts): they start
// in this order and stop in reverse, so the event streams end first, the outputs are driven safe
// before MQTT publishes the offline state, and the database closes (and the data dir lock is
// released) last. Each subsystem is built from the ones before it; the status report is
// assembled from their status().
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Alerts } from './alerts/index.js';
import { EventStreams } from './api/events.js';
import { createAlerts } from './app/alerts.js';
import { apiRoutes } from './app/api-routes.js';
import { Lifecycle } from './app/lifecycle.js';
import { homeAssistantSubsystem } from './app/home-assistant.js';
export { checkDataDir } from './app/check-data-dir.js';
export { certificateFileWarning } from './shared/cert-validity.js';
import { GatewaySubsystem } from './app/subsystems/gateway.js';
import { HardwareSubsystem } from './app/subsystems/hardware.js';
import { HttpSubsystem } from './app/subsystems/http.js';
import { MqttSubsystem } from './app/subsystems/mqtt.js';
import {
  alertsSubsystem,
  authSubsystem,
  fleetSubsystem,
  backupsSubsystem,
  controlSubsystem,
  eventsSubsystem,
  historySubsystem,
} from './app/subsystems/services.js';
import { StoreSubsystem, type DatastoreBus } from './app/subsystems/store.js';
import { Auth } from './auth/auth.js';
import { blockTypes } from './blocks/index.js';
import type { Config } from './config.js';
// The CLI reads its configuration through this module, so it comes from the bundle with the rest.
export { ConfigError, helpText, loadConfig, parseArgs } from './config.js';
export { installedConfigUnread, loadInstalledConfig, unitConfigOnly, unitOrigin } from './installed-config.js';
export { fixableLine } from './shared/errors.js';
import { HardwareLayer } from './hardware/layer.js';
import { createHistory, type History } from './history/index.js';
import { createLogger, type Logger } from './log.js';
import { createMqtt, type AppMqtt } from './mqtt/index.js';
import { systemClock, systemTimers, type Clock, type Timers } from './runtime/clock.js';
import { CLOCK_RESERVE_BYTES, CLOCK_RESERVE_FILE, WallClockService } from './service/wall-clock.js';
import { ReserveFile } from './store/reserve-file.js';
import { ControlLoop } from './runtime/loop.js';
import { BlockRuntime } from './runtime/runtime.js';
import type { UnitsSetting } from './runtime/units-setting.js';
import { BackupSchedule, rottenHold } from './service/backup-schedule.js';
import { ControlEnabled } from './service/control-enabled.js';
import { sparkStatus, type SparkStatusInput } from './service/spark-status.js';
import { stoppedLine, STOPPED_UNTOUCHED } from './app/shutdown-report.js';
import { StartupPhases } from './app/startup-phases.js';
import { BackupFiles } from './store/backup-files.js';
import { lockDataDir, type DataDirLock } from './store/data-dir-lock.js';
import { type Db } from './store/db.js';
import type { DocumentStore } from './store/documents.js';
import { unusableFileError } from './store/file-modes.js';
import { VERSION } from './shared/version.js';
import { dashboardUrlFor, FleetPeers } from './fleet/peers.js';
import { hostname } from 'node:os';

export interface AppOptions {
  clock?: Clock;
  /** Timers on `clock`'s time, which the control loop and the alert checks sleep on (tests: a ManualClock's). */
  timers?: Timers;
  log?: Logger;
}

export interface App {
  config: Config;
  log: Logger;
  db: Db;
  documents: DocumentStore;
  units: UnitsSetting;
  runtime: BlockRuntime;
  http: FastifyInstance;
  loop: ControlLoop;
  /** Buses, GPIO lines and (in sim mode) the emulation behind the hardware blocks. */
  hardware: HardwareLayer;
  /** The message bus (publish/subscribe for other subsystems); see src/mqtt/index.ts. */
  mqtt: AppMqtt;
  /** The TLS gateway; `port` is null when off or not listening. */
  gateway: { readonly port: number | null };
  /** The history service (ingest, store, timeseries API); null with --history off. */
  history: History | null;
  /** The system/status report, assembled from every subsystem's status(). */
  status(): Record<string, unknown>;
  /** The subsystems in start order (stop runs in reverse). */
  subsystems: readonly string[];
  /** Control on/off (PUT settings/enabled). */
  control: ControlEnabled;
  /** Alert conditions, their tracker and delivery. */
  alerts: Alerts;
  /** Set by main: stop gracefully and exit so that the supervisor starts the service again. */
  onRestart?: () => void;
  /** Base URL of the controller HTTP API once listening. */
  readonly url: string;
  /** Milliseconds per start-up phase (module load, db open, hardware probe, ...). */
  phases: StartupPhases;
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Hook for the message bus (app.mqtt): publishes datastore change events and applies events
   * about the controller's namespace from other datastores. Returns the detach function.
   */
  attachDatastoreBus(bus: DatastoreBus): () => void;
}

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  let lock: DataDirLock | null = null;
  try {
    // Before anything opens hardware or restores blocks: a second service on this dir stops here.
    lock = lockDataDir(config.dataDir);
    return await assembleApp(config, opts, lock);
  } catch (e) {
    lock?.release();
    throw unusableFileError(e, config.dataDir) ?? e;
  }
}

async function assembleApp(config: Config, opts: AppOptions, lock: DataDirLock): Promise<App> {
  const phases = new StartupPhases();
  phases.mark('module load');
  const log = opts.log ?? createLogger(config.logLevel, process.env, process.stdout, config.logFormat);
  // Made silently, a mistyped --data-dir would start a controller with no blocks and no word of why.
  if (lock.created)
    log.info(
      { dataDir: config.dataDir },
      `created the data dir ${path.resolve(config.dataDir)}: it did not exist, so this start has no blocks, users or backups (a first start; if it should hold them, check --data-dir or dataDir in the config)`,
    );
  const lifecycle = new Lifecycle(log, phases);
  const auth = Auth.open({ enabled: config.auth, dataDir: config.dataDir, log: log.child({ module: 'auth' }) });
  const store = new StoreSubsystem(config, lock, log);
  phases.mark('db open');
  try {
    return await assembleServices(config, opts, { log, phases, lifecycle, auth, store });
  } catch (e) {
    store.db.close();
    throw e;
  }
}

interface Basics {
  log: Logger;
  phases: StartupPhases;
  lifecycle: Lifecycle;
  auth: Auth;
  store: StoreSubsystem;
}

async function assembleServices(
  config: Config,
  opts: AppOptions,
  { log, phases, lifecycle, auth, store }: Basics,
): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const timers = opts.timers ?? systemTimers;
  const layer = await HardwareLayer.create({ config, clock, log: log.child({ module: 'hardware' }) });
  phases.mark('hardware probe');
  const { documents, units } = store;
  /** The telling of a backup load's document changes, run once its transaction committed. */
  const loadedDocuments: Array<() => void> = [];
  const runtime = new BlockRuntime({
    serviceId: config.serviceId,
    version: VERSION,
    types: blockTypes,
    clock,
    persistence: store.blocks,
    units: () => units.prefs,
    hardware: layer.hardware,
    log: log.child({ module: 'runtime' }),
    discoverers: [layer.discoverer],
    backupStore: {
      save: () => documents.inNamespace(config.serviceId),
      load: (docs) => {
        loadedDocuments.length = 0;
        const rejected = documents.replaceNamespace(config.serviceId, docs, loadedDocuments);
        if (rejected.length) log.warn({ rejected }, 'backup load: documents left out');
        return rejected.map((reason) => (/^store\.\d/.test(reason) ? `document left out: ${reason}` : reason));
      },
      committed: () => {
        for (const tell of loadedDocuments.splice(0)) tell();
      },
    },
  });
  const hardware = new HardwareSubsystem(layer, runtime, log);
  const loop = new ControlLoop(runtime, [layer.service], (now) => layer.nextServiceAt(now), timers);
  const control = new ControlEnabled(store.blocks, runtime, loop, layer, log);
  const http = new HttpSubsystem(config, log);

  /** Monotonic: uptime is not moved by a wall-clock jump. */
  const startedAt = clock.now();
  const sparkInput: SparkStatusInput = {
    serviceId: config.serviceId,
    version: VERSION,
    hardware: config.hardware,
    enabled: () => control.enabled,
    address: () => (http.url ? new URL(http.url).host : null),
  };
  const statusReport = () => ({
    serviceId: config.serviceId,
    version: VERSION,
    online: true,
    startedAt: new Date((clock.wall() ?? Date.now()) - (clock.now() - startedAt)).toISOString(),
    uptime: Math.round((clock.now() - startedAt) / 1000),
    units: units.prefs,
    blocks: runtime.blocks().length,
    ...lifecycle.status(),
    ...sparkStatus(sparkInput),
  });

  const dashboardUrl = () =>
    dashboardUrlFor({
      publicUrl: config.publicUrl,
      host: config.host,
      port: http.url ? Number(new URL(http.url).port) : null,
      hostname: hostname(),
    });
  const mqtt = createMqtt({
    config,
    log: log.child({ module: 'mqtt' }),
    runtime,
    hardwareSummary: () => layer.summary(),
    version: VERSION,
    sparkStatus: sparkInput,
    startedAt,
    busAuth: auth,
    dashboardUrl,
  });
  const fleet = new FleetPeers({
    serviceId: config.serviceId,
    topicRoot: config.topicRoot,
    version: VERSION,
    dashboardUrl,
    log: log.child({ module: 'fleet' }),
    now: () => clock.wall() ?? Date.now(),
    monotonic: () => clock.now(),
  });
  const wallClock = new WallClockService(
    store.db,
    runtime,
    log.child({ module: 'clock' }),
    new ReserveFile(
      path.join(config.dataDir, CLOCK_RESERVE_FILE),
      CLOCK_RESERVE_BYTES,
      'the reserved wall clock record',
    ),
  );
  const history = createHistory({
    config,
    log: log.child({ module: 'history' }),
    now: () => clock.wall() ?? Date.now(),
    clock: { now: () => clock.now(), highWater: () => wallClock.highWater() },
  });
  const alerts = createAlerts({ config, store, runtime, log, timers, control, mqtt, history, layer, fleet, auth });
  alerts.attachMqtt(mqtt);
  const backupFiles = new BackupFiles(config.dataDir, log.child({ module: 'backups' }));
  const backups = new BackupSchedule({
    cron: config.backupSchedule,
    keep: config.backupKeep,
    files: backupFiles,
    save: () => runtime.backupSave(),
    log,
    damaged: () => store.damaged,
    holdPrune: () => rottenHold(documents.rottenIn(config.serviceId)),
  });
  const events = new EventStreams({
    runtime,
    status: statusReport,
    intervalMs: config.emitInterval,
    log: log.child({ module: 'events' }),
  });
  const supervisor: { onRestart?: () => void } = {};

  await http.build(
    auth,
    store.storage,
    await apiRoutes({
      config,
      log,
      runtime,
      documents,
      backupFiles,
      statusReport,
      layer,
      control,
      supervisor,
      events,
      alerts,
      fleet,
      history,
      auth,
      mqtt,
    }),
  );
  phases.mark('http routes');
  runtime.load();
  phases.mark('block restore');

  const gateway = new GatewaySubsystem(config, http, log);
  const bus = new MqttSubsystem(mqtt, store);
  lifecycle.add(store);
  // Before anything can run a block: the time the service was stopped is handed to the blocks first.
  lifecycle.add(wallClock);
  lifecycle.add(authSubsystem(auth));
  lifecycle.add(http);
  lifecycle.add(gateway);
  if (history) lifecycle.add(historySubsystem(history, mqtt, config.topicRoot));
  lifecycle.add(bus);
  lifecycle.add(hardware);
  lifecycle.add(homeAssistantSubsystem({ config, mqtt, runtime, units, alerts, blocks: store.blocks, log }));
  lifecycle.add(controlSubsystem(control, loop, hardware));
  lifecycle.add(backupsSubsystem(config, backups, backupFiles));
  lifecycle.add(alertsSubsystem(alerts));
  lifecycle.add(fleetSubsystem(fleet, mqtt));
  lifecycle.add(eventsSubsystem(events));

  return {
    config,
    log,
    db: store.db,
    documents,
    units,
    runtime,
    http: http.server,
    loop,
    control,
    alerts,
    hardware: layer,
    mqtt,
    gateway,
    history,
    status: statusReport,
    subsystems: lifecycle.names,
    get onRestart() {
      return supervisor.onRestart;
    },
    set onRestart(fn) {
      supervisor.onRestart = fn;
    },
    get url() {
      return http.url;
    },
    phases,
    attachDatastoreBus: (b) => store.attachBus(b),
    start: () => lifecycle.start(),
    async stop() {
      await lifecycle.stop();
      log.info(hardware.droveOutputs ? stoppedLine(hardware.safeCount, bus.offlinePublished) : STOPPED_UNTOUCHED);
    },
  };
}
