// Composition root: config -> store -> hardware -> runtime -> HTTP (and MQTT) -> control loop.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AddressInfo } from 'node:net';
import { blockRoutes } from './api/blocks.js';
import { dashboardRoutes } from './api/dashboard.js';
import { eventRoutes } from './api/events.js';
import { storedBackupRoutes } from './api/stored-backups.js';
import { datastoreRoutes } from './api/datastore.js';
import { buildServer, type ApiContext } from './api/server.js';
import { simRoutes } from './api/sim.js';
import { systemRoutes } from './api/system.js';
import { blockTypes } from './blocks/index.js';
import type { Config } from './config.js';
import { HardwareLayer } from './hardware/layer.js';
import { createHistory, type History } from './history/index.js';
import { createLogger, type Logger } from './log.js';
import { createMqtt, type AppMqtt } from './mqtt/index.js';
import { systemClock, type Clock } from './runtime/clock.js';
import type { Hardware } from './runtime/hardware.js';
import { ControlLoop, type TickHook } from './runtime/loop.js';
import { BlockRuntime, type Discoverer } from './runtime/runtime.js';
import { UnitsSetting, UNITS_DOC_ID } from './runtime/units-setting.js';
import { BackupFiles } from './store/backup-files.js';
import { BlockStore } from './store/block-store.js';
import { BackupSchedule } from './service/backup-schedule.js';
import { openDatabase, type Db } from './store/db.js';
import { bridgeDatastore, type Publish, type Subscribe } from './store/datastore-bus.js';
import { DocumentStore, type Doc } from './store/documents.js';
import { VERSION } from './version.js';

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
  /** Base URL of the controller HTTP API once listening. */
  url: string;
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
  const log = opts.log ?? createLogger(config.logLevel);
  const clock = opts.clock ?? systemClock;
  const db = openDatabase(config.dataDir);
  const store = new BlockStore(db);
  const documents = new DocumentStore(db);
  const units = new UnitsSetting(config.serviceId);
  units.apply(documents.get(config.serviceId, UNITS_DOC_ID));

  let hardwareLayer: HardwareLayer;
  try {
    hardwareLayer = await HardwareLayer.create({ config, clock, log: log.child({ module: 'hardware' }) });
  } catch (e) {
    db.close();
    throw e;
  }
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
    if (keys.includes(`${config.serviceId}:${UNITS_DOC_ID}`) && units.apply(null)) log.info({ units: units.prefs }, 'unit preference reset');
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
  });

  const backupFiles = new BackupFiles(config.dataDir);
  const backups = new BackupSchedule({ cron: config.backupSchedule, keep: config.backupKeep, files: backupFiles, save: () => runtime.backupSave(), log });
  status.backups = () => ({ schedule: config.backupSchedule, keep: config.backupKeep, next: backups.nextRun()?.toISOString() ?? null, stored: backupFiles.list().length });

  const controllerPlugins: FastifyPluginAsync[] = [blockRoutes(runtime), storedBackupRoutes(runtime, backupFiles), systemRoutes(statusReport)];
  if (hardwareLayer.sim) controllerPlugins.push(simRoutes(hardwareLayer.sim));
  controllerPlugins.push(eventRoutes({ runtime, status: statusReport, intervalMs: config.emitInterval }));
  status.hardware = () => hardwareLayer.status();
  const historyPlugins: FastifyPluginAsync[] = [datastoreRoutes(documents)];
  const history = createHistory({ config, log: log.child({ module: 'history' }), now: () => clock.wall() ?? Date.now() });
  if (history) {
    historyPlugins.push(history.routes);
    status.history = history.status;
  }
  const contexts: ApiContext[] = [
    { prefix: `/${config.serviceId}`, title: `edgeblocks ${config.serviceId}`, description: 'Block API of the controller', plugins: controllerPlugins },
  ];
  if (historyPlugins.length) contexts.push({ prefix: '/history', title: 'edgeblocks datastore', description: 'Datastore API', plugins: historyPlugins });
  const http = await buildServer(log.child({ module: 'http' }), contexts);
  await http.register(dashboardRoutes({ serviceId: config.serviceId, emitIntervalMs: config.emitInterval }));

  runtime.load();
  const loop = new ControlLoop(runtime, beforeTick);
  const stops: Array<() => Promise<void> | void> = [];
  const mqtt = createMqtt({ config, log: log.child({ module: 'mqtt' }), runtime, http, status, hardwareSummary: () => hardwareLayer.summary(), version: VERSION, startedAt });
  stops.push(() => mqtt.stop()); // first registered, so it runs last: the offline state goes out after outputs are safe
  stops.push(attachDatastoreBus(mqtt));
  if (history) {
    stops.push(history.attach(mqtt, config.topicRoot));
    stops.push(() => history.stop());
  }
  stops.push(async () => {
    await hardwareLayer.safeState();
    await hardwareLayer.close();
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
    hardware: hardwareLayer,
    mqtt,
    history,
    status,
    url: '',
    onStop: (fn) => stops.push(fn),
    attachDatastoreBus,
    async start() {
      await http.listen({ host: config.host, port: config.port });
      const addr = http.server.address() as AddressInfo;
      const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
      app.url = `http://${host}:${addr.port}/${config.serviceId}`;
      log.info({ port: addr.port, host: config.host }, `http listening on ${config.host}:${addr.port}`);
      history?.start();
      await mqtt.start();
      loop.start();
      backups.start();
    },
    async stop() {
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
    },
  };
  return app;
}
