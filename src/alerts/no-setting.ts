// The setpoint-with-no-setting condition: an enabled setpoint that nothing gives a setting while
// enabled PIDs read it. The problem is there for the PIDs (Observation.dependsOn), so when none of
// them reads it any more (deleted, disabled, set to read another setpoint) or the setpoint is
// disabled (block-alerts.ts, as for every block), the setpoint still has no setting: the alert ends
// as no longer watched, saying which of these happened, not as back to normal (Evaluation.ended,
// Tracker.ended).
import { readingPending, type AnyBlock } from '../runtime/types.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import type { ActiveAlert, Observation } from './types.js';

type Data = Record<string, unknown>;

export interface NoSettingOut {
  seen: Observation[];
  unknown: Set<string>;
  /** Active alerts whose problem is no longer watched → why (Evaluation.ended). */
  ended: Map<string, string>;
}

/**
 * One SetpointSensorPair `b` (its alerts not turned off in the rules). One that a block still
 * drives (with no setting to give) is that block's matter; unknown until the setpoint has run
 * since the start: a block just loaded has no setting yet, whatever it will have.
 */
export function noSetting(
  runtime: BlockRuntime,
  b: AnyBlock,
  active: (key: string) => ActiveAlert | undefined,
  after: number,
  out: NoSettingOut,
): void {
  const data = b.data as Data;
  const key = `setpoint-no-setting:${b.nid}`;
  // A disabled setpoint is not watched; its alert ends as such (block-alerts.ts, for every block).
  if (data.enabled !== true) return;
  if (data.setting !== null || data.claimedBy) return;
  if (readingPending(b)) return void out.unknown.add(key);
  const pids = runtime.links
    .referrers(b.id)
    .filter((p) => p.def.type === 'Pid' && (p.data as Data).enabled === true && (p.data as Data).inputId === b.id)
    .sort((x, y) => x.nid - y.nid)
    .map((p) => p.id);
  if (pids.length === 0) {
    const alert = active(key);
    if (alert) out.ended.set(key, noneReads(runtime, b.id, alert));
    return;
  }
  out.seen.push({
    key,
    kind: 'setpoint-no-setting',
    blockId: b.id,
    after,
    tolerateGaps: false,
    text: noSettingText(b.id, pids),
    values: { setting: null, pids },
    dependsOn: pids,
  });
}

function noSettingText(setpoint: string, pids: readonly string[]): string {
  const them = pids.length === 1 ? `the PID on it (${pids[0]}) is` : `the PIDs on it (${pids.join(', ')}) are`;
  return `${setpoint} has no setting: ${them} not controlling. Give it a setting to take over`;
}

/**
 * The alert named again as noSetting names it, after one of its blocks (the setpoint, a PID) was
 * renamed `from` to `to` (blockId and dependsOn already follow: block-alerts.ts renamedIn).
 */
export function renamedNoSetting(alert: ActiveAlert, from: string, to: string): void {
  const pids = pidsOf(alert).map((id) => (id === from ? to : id));
  if (alert.blockId === undefined) return;
  alert.text = noSettingText(alert.blockId, pids);
  alert.values = { ...alert.values, pids };
}

/** The PIDs an alert was there for: as last seen, or as an alert stored before dependsOn says them. */
function pidsOf(alert: ActiveAlert): string[] {
  return alert.dependsOn ?? (Array.isArray(alert.values?.pids) ? (alert.values.pids as string[]) : []);
}

/** "Heat PID was deleted and Cool PID was set to read Other": what became of the PIDs the alert was there for. */
function noneReads(runtime: BlockRuntime, setpoint: string, alert: ActiveAlert): string {
  const fates = pidsOf(alert).map((id) => {
    const p = runtime.find(id);
    if (!p) return `${id} was deleted`;
    const d = p.data as Data;
    if (d.enabled !== true) return `${id} was disabled`;
    if (typeof d.inputId === 'string' && d.inputId !== '' && d.inputId !== setpoint)
      return `${id} was set to read ${d.inputId}`;
    return `${id} no longer reads it`;
  });
  if (fates.length === 0) return 'No enabled PID reads it any more';
  return fates.length === 1 ? fates[0]! : `${fates.slice(0, -1).join(', ')} and ${fates.at(-1)}`;
}
