// What a card says in words: who drives an output, what it is doing and why (constraint, claim,
// mutex and who holds it), what a mutex is doing, a PID's input, setting and output together.
// Pure functions of the public block JSON, so the words are tested without a browser.
import { driverOf as drivenBy } from '../../src/shared/driven.js';
import type { Block } from './block-types.js';
import type { Role } from './type-doc.js';
import { fmtDuration, fmtNumber, headline, isLetGo, isLink, qtyValue, stateWord } from './blocks.js';
import { CONSTRAINT_WORDS, constraintState, constraintsOf, mutexHolder } from './constraint-state.js';

export { mutexHolder };

const linkTarget = (v: unknown): string | null => (isLink(v) && v.id ? v.id : null);

/**
 * The block that drives this one (a PWM driving an actuator, a PID driving a PWM), or null: no
 * control by hand is offered then, by the rule Home Assistant's commands follow too.
 */
export const driverOf = (b: Block): string | null => drivenBy(b.data);

export interface OutputStory {
  /** The block that drives this output; manual switching is then not offered. */
  driver: string | null;
  /** What the output does now, e.g. "on", or "off, wants on". */
  doing: string;
  /** Why it is not doing what it was asked, and who decides: one sentence each. */
  why: string[];
}

export function outputStory(b: Block, blocks: Map<string, Block>): OutputStory {
  const d = b.data;
  const driver = driverOf(b);
  const isDigital = 'state' in d && 'desiredState' in d;
  const value = isDigital ? d.state : (qtyValue(d.value) ?? d.value);
  const wanted = isDigital ? d.desiredState : (qtyValue(d.setting) ?? d.setting);
  const word = (v: unknown) => (isDigital ? stateWord(v) : `${fmtNumber(v as number | null, 0)} %`);
  const differs =
    wanted !== null &&
    wanted !== undefined &&
    value !== null &&
    value !== undefined &&
    (isDigital ? wanted !== value : Math.abs(Number(wanted) - Number(value)) >= 0.5);
  const doing = differs ? `${word(value)}, wants ${word(wanted)}` : word(value);
  const why: string[] = [];
  if (driver) {
    const by = blocks.get(driver);
    why.push(`Driven by ${driver}${by ? ` (${headline(by)})` : ''}.`);
  } else if (isDigital && 'storedState' in d && !isLetGo(d))
    // Let go by its driver, its state by hand is not used (its problems say it is off until switched).
    why.push(`Switched by hand: ${stateWord(d.storedState)}.`);
  for (const [name, c] of Object.entries(constraintsOf(b))) {
    if (!c || c.limiting !== true) continue;
    const state = constraintState(name, c, b.id, blocks);
    if (state) why.push(`${state.charAt(0).toUpperCase()}${state.slice(1)}.`);
  }
  const holder = channelHolder(b, blocks);
  if (holder)
    why.push(
      `Channel ${holder.channel} of ${holder.board} is held by ${holder.id}: ${b.id} drives nothing while it does.`,
    );
  if (d.enabled === false) why.push('Disabled: its output stays off.');
  return { driver, doing, why };
}

/**
 * Another block holding the IO channel this one names (two on one channel: the first made holds
 * it; the board's `channels` say who), or null.
 */
function channelHolder(b: Block, blocks: Map<string, Block>): { board: string; channel: number; id: string } | null {
  const board = linkTarget(b.data.hwDevice);
  const channel = b.data.channel;
  if (!board || typeof channel !== 'number' || channel === 0) return null;
  const channels = blocks.get(board)?.data.channels;
  if (!Array.isArray(channels)) return null;
  const held = channels.find((c: { id?: unknown }) => c?.id === channel) as { claimedBy?: unknown } | undefined;
  const id = linkTarget(held?.claimedBy);
  return id && id !== b.id ? { board, channel, id } : null;
}

export interface MutexStory {
  holder: string | null;
  /** "X waits 40 s" for each actuator the mutex holds back. */
  waiting: string[];
  /** What the card says big: "free", "held by Heater", "Cooler waits 3 min". */
  headline: string;
}

export function mutexStory(m: Block, blocks: Map<string, Block>): MutexStory {
  const holder = mutexHolder(m.id, blocks.values());
  const waiting: string[] = [];
  for (const b of blocks.values()) {
    const c = constraintsOf(b).mutexed;
    if (!c || linkTarget(c.mutexId) !== m.id || c.limiting !== true) continue;
    const left = qtyValue(c.remaining) ?? qtyValue(m.data.waitRemaining);
    waiting.push(`${b.id} waits${left ? ` ${fmtDuration(left)}` : ''}`);
  }
  let held = '';
  if (holder) {
    // A holder that switched off keeps the lock for its extra hold time.
    const left = blocks.get(holder)?.data.state === 'STATE_INACTIVE' ? qtyValue(m.data.waitRemaining) : null;
    held = `held by ${holder}${left ? `, ${fmtDuration(left)} more` : ''}`;
  }
  return { holder, waiting, headline: waiting[0] ?? (held || 'free') };
}

/** The big line of a block's card: a mutex says who holds it or waits, the others their headline. */
export const cardHeadline = (b: Block, role: Role, blocks: Map<string, Block>): string =>
  b.type === 'Mutex' ? mutexStory(b, blocks).headline : headline(b, role);

/** Field names in words, for labels: `storedSetting` → "Setting", `minOff` → "Minimum off time". */
const FIELD_WORDS: Record<string, string> = {
  storedSetting: 'Setting',
  storedState: 'Manual state',
  sensorId: 'Sensor',
  inputId: 'Input (setpoint)',
  outputId: 'Output',
  actuatorId: 'Actuator',
  targetId: 'Target setpoint',
  hwDevice: 'IO module',
  kp: 'Proportional gain (Kp)',
  ti: 'Integral time (Ti)',
  td: 'Derivative time (Td)',
  ...CONSTRAINT_WORDS,
  minOff: 'Minimum off time',
  minOn: 'Minimum on time',
  delayedOn: 'Delay before on',
  delayedOff: 'Delay before off',
  errorInstruction: 'Error at instruction',
  errorPos: 'Error at column',
};

export function fieldLabel(name: string): string {
  if (FIELD_WORDS[name]) return FIELD_WORDS[name]!.charAt(0).toUpperCase() + FIELD_WORDS[name]!.slice(1);
  const words = name
    .replace(/Id$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A name discovery made up (type and address): the page asks the user for a better one. */
export const isMadeUpName = (id: string): boolean =>
  /^(OneWire Temp Sensor|OneWire Thermocouple|Sensor|Thermocouple|DS18B20|Temp Sensor) ?[0-9a-f]{4,16}$|^Sensor \d+$/i.test(
    id,
  ) ||
  // An I2C chip as discovery names it: `BME280 0x76`, `SHT4X 0x44 on bus 3`.
  /^[A-Z][A-Z0-9]{3,8} 0x[0-9a-f]{2}( on bus \S+)?( \(\d+\))?$/.test(id);
