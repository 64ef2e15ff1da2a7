// The HTTP API as the app serves it: the route plugins of each prefix (the controller's block,
// system and service routes under /<service id>, the datastore and history under /history, the
// login contract at the root) and the routes outside them (the dashboard, /eventbus). The sim's
// routes are loaded only in sim mode.
import type { FastifyPluginAsync } from 'fastify';
import type { Alerts } from '../alerts/index.js';
import { blockRoutes } from '../api/blocks.js';
import { dashboardRoutes } from '../api/dashboard.js';
import { datastoreRoutes } from '../api/datastore.js';
import type { EventStreams } from '../api/events.js';
import { sparkSystemRoutes } from '../api/spark-system.js';
import { storedBackupRoutes } from '../api/stored-backups.js';
import { systemRoutes, type StatusProvider } from '../api/system.js';
import type { Auth } from '../auth/auth.js';
import { authRoutes } from '../auth/routes.js';
import type { Config } from '../config.js';
import type { FleetPeers } from '../fleet/peers.js';
import type { HardwareLayer } from '../hardware/layer.js';
import type { History } from '../history/index.js';
import type { Logger } from '../log.js';
import type { AppMqtt } from '../mqtt/index.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import type { ControlEnabled } from '../service/control-enabled.js';
import type { BackupFiles } from '../store/backup-files.js';
import type { DocumentStore } from '../store/documents.js';
import type { HttpParts } from './subsystems/http.js';

export interface ApiParts {
  config: Config;
  log: Logger;
  runtime: BlockRuntime;
  documents: DocumentStore;
  backupFiles: BackupFiles;
  statusReport: StatusProvider;
  layer: HardwareLayer;
  control: ControlEnabled;
  /** Set by main (App.onRestart): the graceful restart of the service. */
  supervisor: { onRestart?: () => void };
  events: EventStreams;
  alerts: Alerts;
  fleet: FleetPeers;
  history: History | null;
  auth: Auth;
  mqtt: AppMqtt;
}

export async function apiRoutes({
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
}: ApiParts): Promise<HttpParts> {
  const controllerPlugins: FastifyPluginAsync[] = [
    blockRoutes(runtime),
    storedBackupRoutes(runtime, backupFiles),
    systemRoutes(statusReport),
  ];
  if (layer.sim) controllerPlugins.push((await import('../api/sim.js')).simRoutes(layer.sim));
  controllerPlugins.push(
    sparkSystemRoutes({
      enabled: () => control.enabled,
      setEnabled: (v) => control.set(v),
      restart: () =>
        supervisor.onRestart ? supervisor.onRestart() : log.warn('restart requested, but no supervisor hook is set'),
    }),
    events.routes,
    alerts.routes(),
    fleet.routes(),
  );
  const contexts: HttpParts['contexts'] = [
    {
      prefix: `/${config.serviceId}`,
      title: `edgeblocks ${config.serviceId}`,
      description: 'Block API of the controller',
      plugins: controllerPlugins,
    },
    {
      prefix: '/history',
      title: 'edgeblocks datastore',
      description: 'Datastore API',
      plugins: [datastoreRoutes(documents), ...(history ? [history.routes] : [])],
    },
    {
      prefix: '',
      title: 'edgeblocks auth',
      description: 'Login (the Brewblox auth contract)',
      plugins: [authRoutes(auth)],
      public: true,
    },
  ];
  const roots = [
    dashboardRoutes({ serviceId: config.serviceId, emitIntervalMs: config.emitInterval }, undefined, {
      state: () => events.stateMessage(),
      roles: () => Object.fromEntries([...runtime.types.values()].map((t) => [t.type, t.role])),
      mayRead: (headers) => !auth.enabled || auth.grantOf(headers) !== null,
    }),
    mqtt.routes,
  ];
  return { contexts, roots };
}
