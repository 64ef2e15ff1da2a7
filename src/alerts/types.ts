// What an alert is, what happened to it, and what a channel is sent.

export type ConditionKind =
  | 'sensor-null'
  | 'setpoint-band'
  | 'setpoint-no-setting'
  | 'output-on'
  | 'sequence-error'
  | 'device-missing'
  | 'bus-short'
  | 'unclean-stop'
  | 'database-damaged'
  | 'control-disabled'
  | 'broker-unreachable'
  | 'history-unreachable'
  | 'history-dropped'
  | 'disk-full'
  | 'storage-refused'
  | 'service-id-taken'
  | 'users-file-damaged'
  | 'document-damaged';

export const CONDITION_KINDS: ConditionKind[] = [
  'sensor-null',
  'setpoint-band',
  'setpoint-no-setting',
  'output-on',
  'sequence-error',
  'device-missing',
  'bus-short',
  'unclean-stop',
  'database-damaged',
  'control-disabled',
  'broker-unreachable',
  'history-unreachable',
  'history-dropped',
  'disk-full',
  'storage-refused',
  'service-id-taken',
  'users-file-damaged',
  'document-damaged',
];

export const CONDITION_TITLES: Record<ConditionKind, string> = {
  'sensor-null': 'Sensor not reading',
  'setpoint-band': 'Temperature out of band',
  'setpoint-no-setting': 'Setpoint without a setting',
  'output-on': 'Output on too long',
  'sequence-error': 'Sequence in error',
  'device-missing': 'Device missing',
  'bus-short': 'Bus short',
  'unclean-stop': 'Unclean stop',
  'database-damaged': 'Database damaged',
  'control-disabled': 'Control disabled',
  'broker-unreachable': 'Broker unreachable',
  'history-unreachable': 'History store unreachable',
  'history-dropped': 'History points dropped',
  'disk-full': 'Disk nearly full',
  'storage-refused': 'Storage refuses writes',
  'service-id-taken': 'Service id taken',
  'users-file-damaged': 'Users file damaged',
  'document-damaged': 'Stored document damaged',
};

/** One observed problem, as a condition check reports it on each evaluation. */
export interface Observation {
  /** Stable across renames: the kind plus a block nid, device address or nothing. */
  key: string;
  kind: ConditionKind;
  /** Current block id, when the problem belongs to a block. */
  blockId?: string;
  /**
   * Other blocks the problem is there for (the PIDs reading a setpoint with no setting): once
   * none of them needs it (deleted, disabled, reading another block), the problem is no longer
   * watched, which is not back to normal (Evaluation.ended says why).
   */
  dependsOn?: string[];
  /** Seconds the problem must last before it fires. */
  after: number;
  /** False: any clear moment ends the streak (an output that went off). */
  tolerateGaps: boolean;
  /** Human text naming the block and the values. */
  text: string;
  values?: Record<string, unknown>;
  /**
   * A problem that clears by moving somewhere (a beer on its way to a new setting): which way
   * (`toward`) and how far it has come that way (`reached`, larger is further; for a setpoint, the
   * gap to the setting, negated, so a setting ramping away faster than the beer follows is no progress). The count of
   * `after` starts again each time `reached` passes the furthest seen since the count began by
   * `by` or more, and when `toward` changes: only a problem that stops getting better fires.
   */
  progress?: { toward: string; reached: number; by: number };
}

export interface ActiveAlert {
  key: string;
  kind: ConditionKind;
  blockId?: string;
  /** Observation.dependsOn, as last seen (renames followed, deleted ones left out). */
  dependsOn?: string[];
  /**
   * True when the service was stopped while this alert (or its problem, waiting out its `after`)
   * was active and the clock could not show for how long (not set at the stop or at the start, or
   * behind the stop): its times leave that out, so how long it has been active is at least what
   * they say (messages and the dashboard say "at least").
   */
  stopUnknown?: boolean;
  text: string;
  values?: Record<string, unknown>;
  /**
   * When the condition began, was last seen, fired, was last notified: monotonic ms inside the
   * tracker, wall-clock epoch ms in the API and the stored row (times.ts).
   */
  firstSeenAt: number;
  lastSeenAt: number;
  firedAt: number | null;
  lastNotifiedAt: number | null;
  /** How often it came back after a short clear (a flapping sensor). */
  count: number;
  acknowledged: boolean;
  /** Fires once and stays until acknowledged (an unclean stop, a damaged database). */
  oneShot?: boolean;
}

export type AlertEventKind = 'fired' | 'resolved' | 'reminder' | 'acknowledged' | 'test';

/**
 * Why an alert resolved other than by its condition clearing: its block was deleted, its rule
 * turned off, or (`why`) the problem stands but is no longer watched: the blocks it was there for
 * (dependsOn) deleted, disabled or set to read another block, its own block disabled
 * (Evaluation.ended).
 */
export type AlertEnd = 'deleted' | 'unwatched' | { why: string };

/** What channels are sent: one per event, with an id a receiver can use to drop duplicates. */
export interface AlertMessage {
  id: string;
  event: AlertEventKind;
  serviceId: string;
  key: string;
  condition: ConditionKind | 'test';
  blockId: string | null;
  title: string;
  message: string;
  /** 1 (min) .. 5 (urgent), ntfy's scale. */
  priority: number;
  count: number;
  values: Record<string, unknown>;
  at: string;
}

export interface HistoryEntry {
  at: string;
  event: AlertEventKind | 'delivered' | 'failed' | 'dropped';
  key: string;
  messageId?: string;
  channel?: string;
  text: string;
  error?: string;
}
