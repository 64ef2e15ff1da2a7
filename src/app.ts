// Composition root: config -> store -> hardware -> runtime -> HTTP (and MQTT) -> control loop.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AddressInfo } from 'node:net';
import { blockRoutes } from './api/blocks.js';
import { Auth } from './auth/auth.js';
import { installAuthGuard, installUpgradeGuard } from './auth/guard.js';
import { authRoutes } from './auth/routes.js';
import { installCrossSiteGuard, installCrossSiteUpgradeGuard } from './api/csrf.js';
import { installHostGuard, installHostUpgradeGuard } from './api/host-guard.js';
import { refuseUnservedUpgrades } from './api/upgrade-routes.js';
import { dashboardRoutes } from './api/dashboard.js';
import { EventStreams } from './api/events.js';
import { storedBackupRoutes } from './api/stored-backups.js';
import { datastoreRoutes } from './api/datastore.js';
import { buildServer, type ApiContext } from './api/server.js';
import { simRoutes } from './api/sim.js';
import { systemRoutes } from './api/system.js';
import { sparkSystemRoutes } from './api/spark-system.js';
import { ControlEnabled } from './service/control-enabled.js';
import { sparkStatus, type SparkStatusInput } from './service/spark-status.js';
import { blockTypes } from './blocks/index.js';
import type { Config } from './config.js';
import { HardwareLayer } from './hardware/layer.js';
import { createHistory, type History } from './history/index.js';
import { createLogger, type Logger } from './log.js';
import { createMqtt, type AppMqtt } from './mqtt/index.js';
import { HomeAssistant } from './homeassistant/discovery.js';
import { systemClock, type Clock } from './runtime/clock.js';
import type { Hardware } from './runtime/hardware.js';
import { ControlLoop, type TickHook } from './runtime/loop.js';
import { BlockRuntime, type Discoverer } from './runtime/runtime.js';
import { UnitsDocumentSchema } from './codec/units.js';
import { GLOBAL_NAMESPACE, UnitsSetting, UNITS_DOC_ID } from './runtime/units-setting.js';
import { BackupFiles } from './store/backup-files.js';
import { BlockStore } from './store/block-store.js';
import { BackupSchedule } from './service/backup-schedule.js';
import { StartupPhases } from './startup-phases.js';
import { openDatabase, type Db } from './store/db.js';
import { StorageHealth } from './store/storage-health.js';
import { lockDataDir, type DataDirLock } from './store/data-dir-lock.js';
import { unusableFileError } from './store/file-modes.js';
import { logSafeOutputs, safeOutputs, stoppedLine, STOPPED_UNTOUCHED } from './shutdown-report.js';
import { isAddressInUse, portInUseMessage, PortInUseError } from './port-in-use.js';
import { bridgeDatastore, type Publish, type Subscribe } from './store/datastore-bus.js';
import { DocumentStore, type Doc } from './store/documents.js';
import { VERSION } from './version.js';
import { Alerts, parseAlertSettings } from './alerts/index.js';
import { dashboardUrlFor, FleetPeers } from './fleet/peers.js';
import { hostname } from 'node:os';

export interface AppOptions {
  clock?: Clock;
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
  /** The history service (ingest, store, timeseries API); null with --history off. */
  history: History | null;
  /** Extra status sections, filled by subsystems (mqtt, hardware). */
  status: Record<string, () => unknown>;
  /** Control on/off (PUT settings/enabled). */
  control: ControlEnabled;
  /** Set by main: stop gracefully and exit so that the supervisor starts the service again. */
  onRestart?: () => void;
  /** Base URL of the controller HTTP API once listening. */
  url: string;
  /** Milliseconds per start-up phase (module load, db open, hardware probe, ...). */
  phases: StartupPhases;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Run at stop, in reverse order of registration. */
  onStop(fn: () => Promise<void> | void): void;
  /**
   * Hook for the message bus (app.mqtt): publishes datastore change events and applies events
   * about the controller's namespace from other datastores. Returns the detach function.
   */
  attachDatastoreBus(bus: { publish: Publish; subscribe?: Subscribe }): () => void;
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
  const clock = opts.clock ?? systemClock;
  const auth = Auth.open({ enabled: config.auth, dataDir: config.dataDir, log: log.child({ module: 'auth' }) });
  const db = openDatabase(config.dataDir);
  phases.mark('db open');
  const storage = new StorageHealth(config.dataDir, log.child({ module: 'storage' }));
  const store = new BlockStore(db, (e) => storage.noteError(e));
  const units = new UnitsSetting(config.serviceId);
  const documents = new DocumentStore(db, (namespace, id) => (units.isUnitsKey(namespace, id) ? UnitsDocumentSchema : undefined));
  units.apply(documents.get(GLOBAL_NAMESPACE, UNITS_DOC_ID), GLOBAL_NAMESPACE);
  units.apply(documents.get(config.serviceId, UNITS_DOC_ID));

  let hardwareLayer: HardwareLayer;
  try {
    hardwareLayer = await HardwareLayer.create({ config, clock, log: log.child({ module: 'hardware' }) });
  } catch (e) {
    db.close();
    throw e;
  }
  phases.mark('hardware probe');
  const hardware: Hardware = hardwareLayer.hardware;
  const discoverers: Discoverer[] = [hardwareLayer.discoverer];
  const beforeTick: TickHook[] = [hardwareLayer.service];

  const runtime = new BlockRuntime({
    serviceId: config.serviceId,
    version: VERSION,
    types: blockTypes,
    clock,
    persistence: store,
    units: () => units.prefs,
    hardware,
    log: log.child({ module: 'runtime' }),
    discoverers,
    backupStore: {
      save: () => documents.inNamespace(config.serviceId),
      load: (docs) => {
        const rejected = documents.replaceNamespace(config.serviceId, docs);
        if (rejected.length) log.warn({ rejected }, 'backup load: documents left out');
        return rejected.map((reason) => `document left out: ${reason}`);
      },
    },
  });

  // The controller's own documents, changed here or (through the bus) in another datastore.
  const onDocs = (docs: Doc[]) => {
    for (const d of docs) if (units.isUnitsKey(d.namespace, d.id) && units.apply(d)) log.info({ units: units.prefs }, 'unit preference changed');
  };
  const onDeletedKeys = (keys: string[]) => {
    for (const ns of [GLOBAL_NAMESPACE, config.serviceId]) {
      if (keys.includes(`${ns}:${UNITS_DOC_ID}`) && units.apply(null, ns)) log.info({ units: units.prefs }, 'unit preference reset');
    }
  };
  documents.on('changed', onDocs);
  documents.on('deleted', onDeletedKeys);
  const attachDatastoreBus: App['attachDatastoreBus'] = (bus) =>
    bridgeDatastore({
      documents,
      topicRoot: config.topicRoot,
      namespace: config.serviceId,
      publish: (topic, payload, flags) => bus.publish(topic, payload, flags),
      subscribe: bus.subscribe && ((topic, handler) => bus.subscribe!(topic, handler)),
      onRemote: ({ changed, deleted }) => {
        onDeletedKeys(deleted);
        onDocs(changed);
      },
      onError: (err) => log.debug({ err }, 'datastore event not published'),
    });

  const status: App['status'] = {};
  const startedAt = Date.now();
  const sparkStatusInput: SparkStatusInput = { serviceId: config.serviceId, version: VERSION, hardware: config.hardware, enabled: () => control.enabled, address: () => (app.url ? new URL(app.url).host : null) };
  const statusReport = () => ({
    serviceId: config.serviceId,
    version: VERSION,
    online: true,
    startedAt: new Date(startedAt).toISOString(),
    uptime: Math.round((Date.now() - startedAt) / 1000),
    units: units.prefs,
    blocks: runtime.blocks().length,
    quarantined: store.quarantined().map(({ nid, id, type, reason, at }) => ({ nid, id, type, reason, at })),
    ...Object.fromEntries(Object.entries(status).map(([k, fn]) => [k, fn()])),
    ...sparkStatus(sparkStatusInput),
  });

  const backupFiles = new BackupFiles(config.dataDir);
  const backups = new BackupSchedule({ cron: config.backupSchedule, keep: config.backupKeep, files: backupFiles, save: () => runtime.backupSave(), log });
  status.storage = () => storage.status();
  status.backups = () => ({ schedule: config.backupSchedule, keep: config.backupKeep, next: backups.nextRun()?.toISOString() ?? null, stored: backupFiles.list().length });

  const controllerPlugins: FastifyPluginAsync[] = [blockRoutes(runtime), storedBackupRoutes(runtime, backupFiles), systemRoutes(statusReport)];
  if (hardwareLayer.sim) controllerPlugins.push(simRoutes(hardwareLayer.sim));
  controllerPlugins.push(sparkSystemRoutes({ enabled: () => control.enabled, setEnabled: (v) => control.set(v), restart: () => (app.onRestart ? app.onRestart() : log.warn('restart requested, but no supervisor hook is set')) }));
  const events = new EventStreams({ runtime, status: statusReport, intervalMs: config.emitInterval });
  controllerPlugins.push(events.routes);
  status.hardware = () => hardwareLayer.status();
  const historyPlugins: FastifyPluginAsync[] = [datastoreRoutes(documents)];
  const history = createHistory({ config, log: log.child({ module: 'history' }), now: () => clock.wall() ?? Date.now() });
  if (history) {
    historyPlugins.push(history.routes);
    status.history = history.status;
  }
  const alerts = new Alerts({
    settings: config.alerts ?? parseAlertSettings({}),
    serviceId: config.serviceId,
    topicRoot: config.topicRoot,
    homeAssistant: config.homeAssistant,
    dataDir: config.dataDir,
    db,
    documents,
    runtime,
    version: VERSION,
    log: log.child({ module: 'alerts' }),
    controlEnabled: () => control.enabled,
    brokerConnected: () => (config.mqttUrl === 'embedded' ? null : mqtt.connected),
    historyOk: () => (history ? history.store.health() : null),
    hardware: () => ({ missing: hardwareLayer.onewire.missing(), buses: hardwareLayer.onewire.buses() }),
  });
  controllerPlugins.push(alerts.routes());
  const fleet = new FleetPeers({ serviceId: config.serviceId, topicRoot: config.topicRoot, log: log.child({ module: 'fleet' }) });
  controllerPlugins.push(fleet.routes());
  status.fleet = () => fleet.status();
  status.alerts = () => alerts.status();
  const contexts: ApiContext[] = [
    { prefix: `/${config.serviceId}`, title: `edgeblocks ${config.serviceId}`, description: 'Block API of the controller', plugins: controllerPlugins },
  ];
  if (historyPlugins.length) contexts.push({ prefix: '/history', title: 'edgeblocks datastore', description: 'Datastore API', plugins: historyPlugins });
  contexts.push({ prefix: '', title: 'edgeblocks auth', description: 'Login (the Brewblox auth contract)', plugins: [authRoutes(auth)], public: true });
  const http = await buildServer(log.child({ module: 'http' }), contexts, {}, [(app) => installHostGuard(app, config), (app) => app.addHook('onError', (_req, _reply, err, done) => (storage.noteError(err), done())), (app) => installCrossSiteGuard(app, config.allowedOrigins), (app) => installAuthGuard(app, auth)], [
    dashboardRoutes({ serviceId: config.serviceId, emitIntervalMs: config.emitInterval }),
  ]);
  installUpgradeGuard(http.server, auth);
  installCrossSiteUpgradeGuard(http.server, config.allowedOrigins);
  installHostUpgradeGuard(http.server, config); // last installed, first to run
  refuseUnservedUpgrades(http.server);
  phases.mark('http routes');

  runtime.load();
  phases.mark('block restore');
  const loop = new ControlLoop(runtime, beforeTick);
  const control = new ControlEnabled(store, runtime, loop, async () => void (await hardwareLayer.safeState()), log);
  const stops: Array<() => Promise<void> | void> = [];
  const mqtt = createMqtt({ config, log: log.child({ module: 'mqtt' }), runtime, http, status, hardwareSummary: () => hardwareLayer.summary(), version: VERSION, sparkStatus: sparkStatusInput, startedAt, busAuth: auth,
    dashboardUrl: () => dashboardUrlFor({ publicUrl: config.publicUrl, host: config.host, port: (http.server.address() as AddressInfo | null)?.port ?? null, hostname: hostname() }) });
  stops.push(fleet.attach(mqtt));
  let safeCount = 0;
  let offlinePublished = false;
  stops.push(async () => {
    offlinePublished = mqtt.connected;
    await mqtt.stop();
  }); // first registered, so it runs last: the offline state goes out after outputs are safe
  stops.push(attachDatastoreBus(mqtt));
  stops.push(() => auth.close());
  if (auth.enabled) status.auth = () => auth.status();
  if (history) {
    stops.push(history.attach(mqtt, config.topicRoot));
    stops.push(() => history.stop());
  }
  if (config.homeAssistant) {
    const ha = new HomeAssistant({ mqtt, runtime, units, serviceId: config.serviceId, topicRoot: config.topicRoot, version: VERSION, intervalMs: config.emitInterval, log: log.child({ module: 'homeassistant' }) });
    ha.start();
    stops.push(() => ha.stop());
  }
  alerts.attachMqtt(mqtt);
  stops.push(() => alerts.stop());
  // Outputs are this service's to drive (and to leave safe) once control has started or a tick
  // has written to them; a start that failed before that (a busy port) leaves them alone:
  // another instance may be driving them.
  let driving = false;
  let stopping = false;
  const droveOutputs = () => driving || hardwareLayer.serviced;
  stops.push(async () => {
    if (droveOutputs()) {
      const safe = safeOutputs(await hardwareLayer.safeState(), runtime.blocks());
      logSafeOutputs(log, safe);
      safeCount = safe.length;
    }
    await hardwareLayer.close(); // releases buses and lines; drives nothing
  });

  const app: App = {
    config,
    log,
    db,
    documents,
    units,
    runtime,
    http,
    loop,
    control,
    hardware: hardwareLayer,
    mqtt,
    history,
    status,
    url: '',
    phases,
    onStop: (fn) => stops.push(fn),
    attachDatastoreBus,
    async start() {
      await http.listen({ host: config.host, port: config.port }).catch((e: unknown) => {
        throw isAddressInUse(e) ? new PortInUseError(portInUseMessage('http', config.host, config.port, '--port')) : e;
      });
      const addr = http.server.address() as AddressInfo;
      const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
      app.url = `http://${host}:${addr.port}/${config.serviceId}`;
      log.info({ port: addr.port, host: config.host }, `http listening on http://${config.host}:${addr.port} (docs: /${config.serviceId}/api/doc)`);
      phases.mark('listen');
      history?.start();
      await mqtt.start();
      phases.mark('mqtt start');
      if (stopping) return; // a stop came during start-up: the outputs were never this service's
      driving = true;
      await control.start();
      backups.start();
      alerts.start();
      phases.mark('control start');
      log.info({ phases: phases.ms }, 'start-up phases (ms)');
    },
    async stop() {
      stopping = true;
      events.end();
      backups.stop();
      await loop.stop();
      for (const fn of [...stops].reverse()) {
        try {
          await fn();
        } catch (e) {
          log.error({ err: e }, 'shutdown step failed');
        }
      }
      await http.close();
      db.close();
      lock.release();
      log.info(droveOutputs() ? stoppedLine(safeCount, offlinePublished) : STOPPED_UNTOUCHED);
    },
  };
  return app;
}
