// What the overview needs to know about blocks: their role group (from the API document), how
// to print values, and the problems a brewer must see at a glance. Works on the block JSON of the public API only.
import type { Block, Link, Quantity } from './block-types.js';
import { errorWords, thermocoupleFaultWords } from './device-words.js';
import type { Role } from './type-doc.js';
import { lineNames } from '../../src/blocks/shared/sequence-lines.js';
import { driverOf } from '../../src/shared/driven.js';

export type { Role };

export const ROLE_TITLES: Record<Role, string> = {
  sensor: 'Sensors',
  setpoint: 'Setpoints',
  controller: 'Controllers',
  output: 'Outputs',
  io: 'IO',
  system: 'System',
};

/** The overview's groups in their order, each block list by nid (the order blocks were made). */
export const ROLE_ORDER: Role[] = ['sensor', 'setpoint', 'controller', 'output', 'io', 'system'];

export function groupByRole(blocks: Iterable<Block>, roles: ReadonlyMap<string, Role>): Array<[Role, Block[]]> {
  const groups = new Map<Role, Block[]>();
  for (const b of blocks) {
    const r = roleOf(b, roles);
    groups.set(r, [...(groups.get(r) ?? []), b]);
  }
  return ROLE_ORDER.filter((r) => groups.has(r)).map((r) => [
    r,
    groups.get(r)!.sort((a, b) => (a.nid ?? 0) - (b.nid ?? 0)),
  ]);
}

/** A block's role as the API document declares it for its type (x-role); a type it does not know groups by its data. */
export const roleOf = (b: Block, roles: ReadonlyMap<string, Role>): Role =>
  roles.get(b.type) ?? (b.data && 'channels' in b.data ? 'io' : 'controller');

export function isQuantity(v: unknown): v is Quantity {
  return (
    !!v &&
    typeof v === 'object' &&
    ((v as Quantity).__objtype === 'Quantity' || (v as Quantity).__bloxtype === 'Quantity')
  );
}

export function isLink(v: unknown): v is Link {
  return !!v && typeof v === 'object' && ((v as Link).__objtype === 'Link' || (v as Link).__bloxtype === 'Link');
}

const UNIT_LABELS: Record<string, string> = {
  degC: '°C',
  degF: '°F',
  delta_degC: 'Δ°C',
  delta_degF: 'Δ°F',
  second: 's',
  '1 / degC': '/°C',
  '1 / degF': '/°F',
};

export const unitLabel = (unit: string): string => UNIT_LABELS[unit] ?? unit;

/** An analog input's scale (AnalogSensorI2c `unit`) as a unit label. */
const ANALOG_UNITS: Record<string, string> = { VOLT: 'V', BAR: 'bar', PSI: 'psi', PERCENT: '%', DEG_C: '°C' };
export const analogUnitLabel = (unit: unknown): string =>
  typeof unit === 'string' ? (ANALOG_UNITS[unit] ?? unit.toLowerCase()) : '';

export function fmtNumber(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits);
}

export function fmtQty(q: unknown, digits = 1): string {
  if (isQuantity(q))
    return q.unit === 'second' ? fmtDuration(q.value) : `${fmtNumber(q.value, digits)} ${unitLabel(q.unit)}`;
  if (typeof q === 'number') return fmtNumber(q, digits);
  return q === null || q === undefined ? '—' : String(q);
}

export function fmtDuration(s: number | null): string {
  if (s === null) return '—';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

export const qtyValue = (q: unknown): number | null => (isQuantity(q) ? q.value : typeof q === 'number' ? q : null);

export interface Problem {
  level: 'error' | 'warn' | 'info';
  text: string;
}

/** A link of a block (at `path` in its data, nested in constraints or lists too) to a block that is not there. */
export interface DanglingLink {
  path: string[];
  id: string;
}

/**
 * The links in `data` whose block is not there (a deleted block: blocks/delete lists them as
 * `dangling`). Read-only links (`claimedBy`) are the controller's own account, not a setting.
 */
export function danglingLinks(data: unknown, exists: (id: string) => boolean, path: string[] = []): DanglingLink[] {
  if (isLink(data)) return data.id && !data.readonly && !exists(data.id) ? [{ path, id: data.id }] : [];
  if (data === null || typeof data !== 'object') return [];
  return Object.entries(data).flatMap(([k, v]) => danglingLinks(v, exists, [...path, k]));
}

/** The words for a link to a block that is not there (deleted: blocks/delete's `dangling`). */
export const missingLinkWords = (id: string): string => `links to missing block "${id}"`;

/**
 * Let go by what drove it (Brewblox's safety ratchet): in settingMode CLAIMED with no block
 * claiming it, a block has no setting (or state) and stays inactive until set by hand.
 */
export const isLetGo = (d: Record<string, unknown>): boolean => d.settingMode === 'CLAIMED' && driverOf(d) === null;

/**
 * The links of a block to blocks that are not there, and the lines of a Sequence's instructions
 * that name one (path `instructions.<index>`, as blocks/delete lists them): a Sequence stops with
 * INVALID_TARGET only once it reaches such a line.
 */
export function missingTargets(b: Block, exists: (id: string) => boolean): DanglingLink[] {
  const links = danglingLinks(b.data, exists);
  const lines = b.type === 'Sequence' && Array.isArray(b.data?.instructions) ? b.data.instructions : [];
  const named = lines.flatMap((line, i) =>
    typeof line === 'string'
      ? lineNames(line)
          .filter((n) => !exists(n.id))
          .map((n) => ({ path: ['instructions', String(i)], id: n.id }))
      : [],
  );
  return [...links, ...named];
}

/**
 * The API counts a Sequence's instructions from 0 (`activeInstruction`, as Brewblox defines it;
 * `errorInstruction`) and the column of a parse error (`errorPos`) from 0; people count lines and
 * columns from 1, as the controller's own `errorMessage` does ("instruction 2: ..."). These fields
 * are shown and typed from 1 everywhere the dashboard shows them.
 */
export const countsFromOne = (type: string, field: string): boolean =>
  type === 'Sequence' && (field === 'activeInstruction' || field === 'errorInstruction' || field === 'errorPos');

/** Where a link is, in words: "Sensor", "Constraints › Mutex", "Instruction 2" (`label` gives a field's words). */
export function linkPlace(path: string[], label: (name: string) => string): string {
  if (path.length === 2 && path[0] === 'instructions' && /^\d+$/.test(path[1]!))
    return `Instruction ${Number(path[1]) + 1}`;
  const words = path.filter((p) => !/^\d+$/.test(p)).map(label);
  return words.filter((w, i) => w !== words[i - 1]).join(' › ');
}

/** A link to a missing block in words, where it is: "Instruction 2 links to missing block "Beer Setpoint"". */
export const missingTargetWords = (l: DanglingLink, label: (name: string) => string): string =>
  `${linkPlace(l.path, label)} ${missingLinkWords(l.id)}`;

/**
 * The 1-Wire devices (16-hex-digit addresses) that answer on their bus but whose every reply fails
 * its CRC check, as the status (system/status, the event stream's) lists them in
 * `hardware.onewire.garbled`; none when it does not.
 */
export function garbledDevices(status: Record<string, unknown>): Set<string> {
  const hw = status.hardware as { onewire?: { garbled?: unknown } } | undefined;
  const list = hw?.onewire?.garbled;
  return new Set(Array.isArray(list) ? list.filter((a): a is string => typeof a === 'string') : []);
}

/**
 * Problems of one block, in words. `exists` tells whether a link target is there; `label` gives
 * a field's name in words; `garbled` the devices that answer with damaged replies (garbledDevices):
 * a block on one is not said to be disconnected.
 */
export function problemsOf(
  b: Block,
  role: Role,
  exists: (id: string) => boolean,
  label: (name: string) => string = (n) => n,
  garbled: ReadonlySet<string> = new Set(),
): Problem[] {
  const d = b.data ?? {};
  const out: Problem[] = [];
  // A thermocouple fault (the MAX31850's `fault`, the MCP9600's error) says what is wrong with it.
  const fault =
    thermocoupleFaultWords(typeof d.fault === 'string' ? d.fault : null) ??
    (typeof d.lastError === 'string' ? thermocoupleFaultWords(d.lastError) : null);
  if (fault) out.push({ level: 'error', text: `Thermocouple fault: ${fault}` });
  else if (d.connected === false && typeof d.address === 'string' && garbled.has(d.address))
    out.push({
      level: 'error',
      text: `${role === 'sensor' ? 'sensor' : 'device'} answers but its replies fail their checks (CRC): a noisy bus, a long cable or a failing chip`,
    });
  else if (d.connected === false) {
    const why = typeof d.lastError === 'string' && d.lastError ? `: ${errorWords(d.lastError)}` : '';
    out.push({ level: 'error', text: `${role === 'sensor' ? 'sensor disconnected' : 'device disconnected'}${why}` });
  }
  if (!fault && isQuantity(d.value) && d.value.value === null && (role === 'sensor' || b.type === 'SetpointSensorPair'))
    out.push({ level: 'error', text: 'value is null (no valid reading)' });
  // The safety ratchet: a block whose driver let go stays inactive until set by hand.
  if (isLetGo(d))
    out.push({
      level: 'warn',
      text: `inactive since the block that drove it let go: ${'storedState' in d ? 'switch it' : 'set it'} by hand to take over`,
    });
  if (b.type === 'Pid' && d.enabled === true && d.active === false)
    out.push({ level: 'warn', text: 'not active: input or output invalid' });
  if (isLink(d.hwDevice) && !d.hwDevice.id) out.push({ level: 'warn', text: 'not wired: no IO module channel chosen' });
  for (const l of missingTargets(b, exists)) out.push({ level: 'error', text: missingTargetWords(l, label) });
  // A Sequence stopped at a line says why (errorMessage: "instruction 2: INVALID_TARGET: ...").
  if (d.status === 'ERROR' && typeof d.errorMessage === 'string' && d.errorMessage)
    out.push({ level: 'error', text: d.errorMessage.charAt(0).toUpperCase() + d.errorMessage.slice(1) });
  const constraints = d.constraints;
  // Outputs tell their constraints in their own words (explain.ts outputStory).
  if (constraints && typeof constraints === 'object' && role !== 'output') {
    for (const [name, c] of Object.entries(constraints as Record<string, Record<string, unknown>>)) {
      if (c && c.limiting === true) {
        const left = qtyValue(c.remaining);
        out.push({ level: 'warn', text: `limited by ${name}${left ? ` for ${fmtDuration(left)} more` : ''}` });
      }
    }
  }
  if (role !== 'output' && 'desiredState' in d && 'state' in d && d.state !== null && d.desiredState !== d.state)
    out.push({ level: 'warn', text: `wants ${stateWord(d.desiredState)}, is ${stateWord(d.state)}` });
  return out;
}

export function stateWord(s: unknown): string {
  if (s === 'STATE_ACTIVE' || s === 1 || s === true) return 'on';
  if (s === 'STATE_INACTIVE' || s === 0 || s === false) return 'off';
  if (s === null || s === undefined) return 'unknown';
  return String(s)
    .replace(/^STATE_/, '')
    .toLowerCase();
}

/** The one value a card shows big. */
export function headline(b: Block, role?: Role): string {
  const d = b.data ?? {};
  // A disconnected sensor's last number is not a reading: never show it as one.
  if (d.connected === false && role === 'sensor' && isQuantity(d.value)) return `— ${unitLabel(d.value.unit)}`;
  switch (b.type) {
    case 'SetpointSensorPair':
      return fmtQty(d.value);
    case 'SetpointProfile':
      return d.enabled ? fmtQty(d.setting) : 'stopped';
    case 'Pid':
      // Input, setting and output together: a PID is read as "21.3 → 21.0, heating at 40 %".
      return d.enabled
        ? `${fmtQty(d.inputValue)} → ${fmtQty(d.inputSetting)} · out ${fmtNumber(qtyValue(d.outputValue) ?? (d.outputValue as number | null), 0)} %`
        : 'disabled';
    case 'AnalogSensorI2c':
      return `${fmtNumber(qtyValue(d.value), 2)} ${analogUnitLabel(d.unit)}`;
    case 'ActuatorPwm':
    case 'ActuatorAnalogMock':
    case 'FastPwm':
      return `${fmtNumber(qtyValue(d.value) ?? (d.value as number | null), 0)} %`;
    case 'DigitalActuator':
    case 'MotorValve':
    case 'DigitalInput':
      return stateWord(d.state);
    case 'Mutex':
      // Its state is in its actuators: the card says it (explain.ts mutexStory).
      return '';
    default:
      if ('value' in d) return fmtQty(d.value);
      if (Array.isArray(d.channels)) return `${d.channels.length} channels`;
      return '';
  }
}
