// What becomes of a block's own alerts when the block or the rules change, rather than the
// condition: a rule turned off (watched; a problem still waiting out its `after` dropped,
// unwatchedDropped, and so for the hardware and service rules, unwatchedPending), the block renamed
// (renamedIn), the block disabled (disabled). Each ends or renames the alert, saying so, never as
// "Back to normal".
import type { BlockRule, Rules } from './rules.js';
import { renamedNoSetting } from './no-setting.js';
import type { AnyBlock } from '../runtime/types.js';
import type { ActiveAlert, ConditionKind } from './types.js';

/**
 * Whether the rules still watch for an alert's condition: false once its rule, or its block's
 * alerts, are turned off (an output's "on too long" time set to 0 too). Such an alert is not
 * seen again whatever the block does, so it is not back to normal either.
 */
export function watched(a: { kind: ConditionKind; blockId?: string }, rules: Rules): boolean {
  const block: BlockRule = a.blockId === undefined ? {} : (rules.blocks[a.blockId] ?? {});
  switch (a.kind) {
    case 'sensor-null':
      return rules.sensorNull.enabled && block.enabled !== false;
    case 'setpoint-band':
      return rules.setpointBand.enabled && block.enabled !== false;
    case 'setpoint-no-setting':
      return rules.noSetting.enabled && block.enabled !== false;
    case 'sequence-error':
      return rules.sequenceError.enabled && block.enabled !== false;
    case 'output-on':
      return rules.outputOn.enabled && block.enabled !== false && (block.onAfter ?? rules.outputOn.after) > 0;
    case 'device-missing':
    case 'bus-short':
      return rules.hardware.enabled;
    default:
      return rules.service.enabled;
  }
}

/**
 * An active alert naming its blocks as they are called now, after a block was renamed `from` to
 * `to`, as its condition names them when it raises it: its own block (a block's condition text
 * begins with its id) and the blocks it is there for (dependsOn: a setpoint's PIDs, which its text
 * names too). The next evaluation would not say it again for an alert no longer seen (clearing, or
 * ended before it): its resolve said "Boiler: ... It was: Heater has been on ...". Whether it changed.
 */
export function renamedIn(alert: ActiveAlert, from: string, to: string): boolean {
  const own = alert.blockId === from;
  const depends = alert.dependsOn?.includes(from) === true;
  if (!own && !depends) return false;
  if (depends) alert.dependsOn = alert.dependsOn!.map((id) => (id === from ? to : id));
  if (own) {
    alert.blockId = to;
    if (alert.text.startsWith(`${from} `)) alert.text = `${to}${alert.text.slice(from.length)}`;
  }
  if (alert.kind === 'setpoint-no-setting') renamedNoSetting(alert, from, to);
  return true;
}

/** The conditions of a block itself: their keys are the kind and the block's nid. */
const BLOCK_KINDS = ['sensor-null', 'setpoint-band', 'setpoint-no-setting', 'sequence-error', 'output-on'] as const;

/**
 * A block's own problems whose rule is turned off (globally, in the block's alert settings, an
 * output's time set to 0): an alert active ends as turned off (Tracker.unwatched); one still
 * waiting out its `after` is dropped (Evaluation.dropped), so the rule turned on again starts the
 * wait over, the time before and while it was off not counted (within resolveAfter a streak would
 * otherwise go on over the gap, and fire at once).
 */
export function unwatchedDropped(b: AnyBlock, rules: Rules, dropped: Set<string>): void {
  for (const kind of BLOCK_KINDS) if (!watched({ kind, blockId: b.id }, rules)) dropped.add(`${kind}:${b.nid}`);
}

/**
 * The problems not of a block (their keys: `device-missing:...`, `bus-short:...` for the hardware
 * rule, a bare name for the service rule) still waiting out their `after` (Tracker.pendingKeys)
 * whose rule is turned off: dropped as a block's are (unwatchedDropped).
 */
export function unwatchedPending(keys: Iterable<string>, rules: Rules): Set<string> {
  const out = new Set<string>();
  for (const key of keys) {
    const kind = key.includes(':') ? key.slice(0, key.indexOf(':')) : null;
    if ((BLOCK_KINDS as readonly string[]).includes(kind ?? '')) continue;
    const hardware = kind === 'device-missing' || kind === 'bus-short';
    if (hardware ? !rules.hardware.enabled : kind === null && !rules.service.enabled) out.add(key);
  }
  return out;
}

/**
 * A block the user disabled (its `enabled` field false: a setpoint, an external sensor) is not
 * watched: what it does not do then (no setting, no value) is what the user asked for. An alert of
 * its own still active ends at this check, saying so (Evaluation.ended: "No longer watched: ...
 * Beer Setpoint was disabled while this alert was active"), not as back to normal: the problem
 * stands, nothing came back. One still waiting out its `after` is dropped (Evaluation.dropped):
 * enabled again, the wait starts over, the time before and while it was disabled not counted.
 */
export function disabled(
  b: AnyBlock,
  active: (key: string) => ActiveAlert | undefined,
  ended: Map<string, string>,
  dropped: Set<string>,
): void {
  for (const kind of BLOCK_KINDS) {
    const key = `${kind}:${b.nid}`;
    if (active(key)) ended.set(key, `${b.id} was disabled`);
    else dropped.add(key);
  }
}

/**
 * Control disabled: the blocks are not updated, so what they show is as it was when it stopped
 * (an output in its safe state still reads on), and their own problems are not watched. An active
 * alert of a block stays as it is (neither bad nor clear: `unknown`); one still waiting out its
 * `after` is dropped, so it does not fire on the stale values and, control enabled again, the wait
 * starts over.
 */
export function notUpdated(
  b: AnyBlock,
  active: (key: string) => ActiveAlert | undefined,
  unknown: Set<string>,
  dropped: Set<string>,
): void {
  for (const kind of BLOCK_KINDS) {
    const key = `${kind}:${b.nid}`;
    if (active(key)) unknown.add(key);
    else dropped.add(key);
  }
}
