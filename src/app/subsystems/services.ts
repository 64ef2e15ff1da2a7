// The small subsystems of the app, each a {name, start, stop, status} around one service.
import type { Alerts } from '../../alerts/index.js';
import type { EventStreams } from '../../api/events.js';
import type { FleetPeers } from '../../fleet/peers.js';
import type { Auth } from '../../auth/auth.js';
import type { Config } from '../../config.js';
import type { History } from '../../history/index.js';
import type { AppMqtt } from '../../mqtt/index.js';
import type { ControlLoop } from '../../runtime/loop.js';
import type { BackupFiles } from '../../store/backup-files.js';
import type { BackupSchedule } from '../../service/backup-schedule.js';
import type { ControlEnabled } from '../../service/control-enabled.js';
import type { Subsystem } from '../lifecycle.js';
import type { HardwareSubsystem } from './hardware.js';

/** Logins, sessions and tokens; the users file watch ends at stop. */
export function authSubsystem(auth: Auth): Subsystem {
  return { name: 'auth', stop: () => auth.close(), status: () => (auth.enabled ? { auth: auth.status() } : {}) };
}

/** The history store and its ingest from the bus (off: only the status says so). */
export function historySubsystem(history: History, mqtt: AppMqtt, topicRoot: string): Subsystem {
  let detach: (() => void) | null = null;
  return {
    name: 'history',
    start: () => {
      history.start();
      detach = history.attach(mqtt, topicRoot);
    },
    stop: async () => {
      detach?.();
      detach = null;
      await history.stop();
    },
    status: () => ({ history: history.status() }),
  };
}

/** The control loop: from its start on, the outputs are this service's (the hardware's stop drives them safe). */
export function controlSubsystem(control: ControlEnabled, loop: ControlLoop, hardware: HardwareSubsystem): Subsystem {
  return {
    name: 'control',
    phase: 'control start',
    start: async () => {
      hardware.driving = true;
      await control.start();
    },
    stop: () => loop.stop(),
  };
}

export function backupsSubsystem(config: Config, backups: BackupSchedule, files: BackupFiles): Subsystem {
  return {
    name: 'backups',
    start: () => backups.start(),
    stop: () => backups.stop(),
    status: () => ({
      backups: {
        schedule: config.backupSchedule,
        keep: config.backupKeep,
        next: backups.nextRun()?.toISOString() ?? null,
        stored: files.list().length,
      },
    }),
  };
}

export function alertsSubsystem(alerts: Alerts): Subsystem {
  return {
    name: 'alerts',
    start: () => alerts.start(),
    stop: () => alerts.stop(),
    status: () => ({ alerts: alerts.status() }),
  };
}

/** Dashboard event streams: the first to stop, so every open page gets a last offline state. */
export function eventsSubsystem(events: EventStreams): Subsystem {
  return { name: 'event streams', stop: () => events.end(), status: () => ({ events: events.status() }) };
}

/** The other controllers seen on the broker (GET /{id}/fleet). */
export function fleetSubsystem(fleet: FleetPeers, mqtt: AppMqtt): Subsystem {
  let detach: (() => void) | null = null;
  return {
    name: 'fleet',
    start: () => {
      detach = fleet.attach(mqtt);
    },
    stop: () => {
      detach?.();
      detach = null;
    },
    status: () => ({ fleet: fleet.status() }),
  };
}
