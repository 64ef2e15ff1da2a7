// The alerts subsystem as the app builds it: its settings from the config, and the sources of its
// conditions (control on/off, the broker, history, the hardware, the fleet, damaged documents and
// settings, the users file) read from the subsystems built before it.
import { Alerts, parseAlertSettings } from '../alerts/index.js';
import type { Auth } from '../auth/auth.js';
import type { Config } from '../config.js';
import type { FleetPeers } from '../fleet/peers.js';
import type { HardwareLayer } from '../hardware/layer.js';
import type { History } from '../history/index.js';
import type { Logger } from '../log.js';
import type { AppMqtt } from '../mqtt/index.js';
import type { Timers } from '../runtime/clock.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import { GLOBAL_NAMESPACE, UNITS_DOC_ID } from '../runtime/units-setting.js';
import type { ControlEnabled } from '../service/control-enabled.js';
import { VERSION } from '../shared/version.js';
import { keyOf } from '../store/documents.js';
import type { StoreSubsystem } from './subsystems/store.js';

export interface AlertSources {
  config: Config;
  store: StoreSubsystem;
  runtime: BlockRuntime;
  log: Logger;
  timers: Timers;
  control: ControlEnabled;
  mqtt: AppMqtt;
  history: History | null;
  layer: HardwareLayer;
  fleet: FleetPeers;
  auth: Auth;
}

export function createAlerts({
  config,
  store,
  runtime,
  log,
  timers,
  control,
  mqtt,
  history,
  layer,
  fleet,
  auth,
}: AlertSources): Alerts {
  const { documents } = store;
  return new Alerts({
    settings: config.alerts ?? parseAlertSettings({}),
    serviceId: config.serviceId,
    topicRoot: config.topicRoot,
    homeAssistant: config.homeAssistant,
    dataDir: config.dataDir,
    db: store.db,
    storage: store.storage,
    damagedDatabase: () => store.damaged,
    damagedDatabaseReported: () => store.damagedReported(),
    documents,
    runtime,
    version: VERSION,
    log: log.child({ module: 'alerts' }),
    timers,
    controlEnabled: () => control.enabled,
    brokerConnected: () =>
      config.mqttUrl === 'embedded' ? null : mqtt.connected ? true : mqtt.triedToConnect ? false : 'connecting',
    historyOk: () => (history ? history.store.health() : null),
    historyDropping: () => history?.ownDrop() ?? null,
    hardware: () => ({ ...layer.devices(), buses: layer.onewire.buses() }),
    sameServiceId: () => fleet.twin(),
    damagedDocuments: () => {
      const keys = documents.rotten().map((d) => d.key);
      const unitsKeys = [keyOf(GLOBAL_NAMESPACE, UNITS_DOC_ID), keyOf(config.serviceId, UNITS_DOC_ID)];
      const settings = [control.damaged()].filter((s) => s !== null);
      return keys.length || settings.length ? { keys, units: keys.some((k) => unitsKeys.includes(k)), settings } : null;
    },
    usersFileDamaged: () => (config.auth ? (auth.users.broken?.message ?? null) : null),
  });
}
