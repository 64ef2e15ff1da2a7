// Setting up: discovery, the fermentation-fridge wizard, temperature units, backups.
import { useState } from 'preact/hooks';
import { controller, createBlock, download, patchBlock, serviceId, type Block } from './api';
import { isLink, roleOf, unitLabel } from './blocks';
import { parseNumber } from './field-kinds';
import { rangeOf, type Role } from './type-doc';
import { useTypeDoc } from './use-type-doc';
import { applyAll, applyPatch, useLive } from './live';
import { Units } from './Units';
import { fromInternal, prefsOf, retyped } from './units';
import { channelLabel, freePrefix, fridgeBlocks, fridgeNames, type Channel, type FridgeChoice } from './wizard';

function Discovery() {
  const [text, setText] = useState('');
  const discover = async () => {
    setText('searching the buses…');
    const a = await controller<Block[]>('blocks/discover');
    if (!a.ok) return setText(a.error);
    applyPatch(a.body);
    setText(
      a.body.length
        ? `found ${a.body.length} new: ${a.body.map((b) => `${b.id} (${b.type})`).join(', ')}`
        : 'no new devices found',
    );
  };
  return (
    <section class="panel">
      <h2>Discover hardware</h2>
      <p class="muted">Searches every bus and adds a block for each new sensor or IO module.</p>
      <button onClick={() => void discover()} data-testid="discover">
        Discover
      </button>
      {text && <p class="answer">{text}</p>}
    </section>
  );
}

/** ChannelCapability.DIGITAL_OUTPUT of an IoArray channel (src/blocks/shared/enums.ts). */
const DIGITAL_OUTPUT = 1;

/** Channels that can drive an output (an input line, such as a door contact, cannot). */
function channelsOf(blocks: Block[], roles: ReadonlyMap<string, Role>): Channel[] {
  const out: Channel[] = [];
  for (const b of blocks) {
    if (roleOf(b, roles) !== 'io' || !Array.isArray(b.data.channels)) continue;
    // GpioPins says which configured line each channel is: the brewer named it ("fan").
    const lines = Array.isArray(b.data.lines) ? (b.data.lines as Array<{ channel?: unknown; name?: unknown }>) : [];
    for (const ch of b.data.channels as Array<{ id: number; capabilities?: number; claimedBy?: unknown }>) {
      if (((ch.capabilities ?? 0) & DIGITAL_OUTPUT) === 0) continue;
      const name = lines.find((l) => l.channel === ch.id)?.name;
      out.push({
        blockId: b.id,
        channel: ch.id,
        claimedBy: isLink(ch.claimedBy) ? ch.claimedBy.id : null,
        ...(typeof name === 'string' && name ? { name } : {}),
      });
    }
  }
  return out;
}

const chKey = (c: Channel) => `${c.blockId}#${c.channel}`;

function Wizard({ unit }: { unit: string }) {
  const live = useLive();
  const types = useTypeDoc();
  const blocks = [...live.blocks.values()];
  const sensors = blocks.filter((b) => b.type.startsWith('TempSensor')).map((b) => b.id);
  const channels = channelsOf(blocks, types?.roles ?? new Map());
  const start = Math.round(fromInternal(20, 'temp', { temperature: unit === 'degF' ? 'degF' : 'degC' }));
  const defaults = { beer: start, fridge: start };
  // The prefix is the first free one ("Ferment", "Ferment 2", ...) until the brewer types one.
  const [typedPrefix, setTypedPrefix] = useState<string | null>(null);
  const prefix = typedPrefix ?? freePrefix((name) => live.blocks.has(name));
  const [form, setForm] = useState({
    beerSensor: '',
    fridgeSensor: '',
    heat: '',
    cool: '',
    beerSetting: String(defaults.beer),
    fridgeSetting: String(defaults.fridge),
    mode: 'beer',
  });
  const [log, setLog] = useState<Array<{ text: string; bad?: boolean }>>([]);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  // The settings' text with the unit it was written in: when the unit changes (here or elsewhere)
  // they are shown converted, and the sensors and channels picked stay.
  const [settingsIn, setSettingsIn] = useState(unit);
  const shownSetting = (k: 'beerSetting' | 'fridgeSetting') => retyped(form[k], settingsIn, unit);
  const setSetting = (k: 'beerSetting' | 'fridgeSetting') => (e: Event) => {
    setForm({
      ...form,
      beerSetting: shownSetting('beerSetting'),
      fridgeSetting: shownSetting('fridgeSetting'),
      [k]: (e.target as HTMLInputElement).value,
    });
    setSettingsIn(unit);
  };

  const problems: string[] = [];
  if (!form.beerSensor || !form.fridgeSensor) problems.push('pick both sensors');
  else if (form.beerSensor === form.fridgeSensor) problems.push('beer and fridge need different sensors');
  if (!form.heat || !form.cool) problems.push('pick a heater and a cooler channel');
  else if (form.heat === form.cool) problems.push('heater and cooler need different channels');
  // Checked here, before any block is made: a setting the service refuses would stop the chain
  // half made. A comma is a decimal point, as in every other number field.
  const prefs = { temperature: unit === 'degF' ? 'degF' : 'degC' } as const;
  const range = rangeOf(types?.data.get('SetpointSensorPair')?.properties?.storedSetting);
  const [min, max] = [range.min, range.max].map((v) => (v === undefined ? undefined : fromInternal(v, 'temp', prefs)));
  const setting = (k: 'beerSetting' | 'fridgeSetting'): number => {
    try {
      return parseNumber(k, shownSetting(k)) ?? Number.NaN;
    } catch {
      return Number.NaN;
    }
  };
  for (const k of ['beerSetting', 'fridgeSetting'] as const) {
    const what = k === 'beerSetting' ? 'beer' : 'fridge';
    const v = setting(k);
    if (!Number.isFinite(v)) problems.push(`${what} setting must be a number`);
    else if ((min !== undefined && v < min) || (max !== undefined && v > max))
      problems.push(`${what} setting must be between ${min ?? '−∞'} and ${max ?? '∞'} ${unitLabel(unit)}`);
  }
  const taken = Object.values(fridgeNames(prefix.trim())).filter((n) => live.blocks.has(n));
  if (taken.length) problems.push(`names in use: ${taken.join(', ')} (change the prefix)`);

  const run = async (e: Event) => {
    e.preventDefault();
    if (problems.length) return;
    setBusy(true);
    const lines: Array<{ text: string; bad?: boolean }> = [];
    const byKey = new Map(channels.map((c) => [chKey(c), c]));
    const heat = byKey.get(form.heat)!;
    const cool = byKey.get(form.cool)!;
    // Like the quick start: actuators already on the chosen channels let go of them first.
    for (const c of [heat, cool]) {
      if (!c.claimedBy) continue;
      const a = await patchBlock(
        { id: c.claimedBy, type: live.blocks.get(c.claimedBy)?.type ?? 'DigitalActuator' },
        { hwDevice: { __objtype: 'Link', id: null } },
      );
      lines.push({
        text: a.ok ? `released ${chKey(c)} from ${c.claimedBy}` : `could not release ${chKey(c)}: ${a.error}`,
        bad: !a.ok,
      });
      setLog([...lines]);
      if (!a.ok) return setBusy(false);
      applyPatch([a.body]);
    }
    const choice: FridgeChoice = {
      prefix: prefix.trim(),
      beerSensor: form.beerSensor,
      fridgeSensor: form.fridgeSensor,
      heat,
      cool,
      beerSetting: setting('beerSetting'),
      fridgeSetting: setting('fridgeSetting'),
      unit: prefs.temperature,
      mode: form.mode as 'beer' | 'fridge',
    };
    for (const block of fridgeBlocks(choice)) {
      const a = await createBlock(block);
      lines.push({ text: a.ok ? `created ${block.id}` : `${block.id}: ${a.error}`, bad: !a.ok });
      setLog([...lines]);
      if (!a.ok) {
        lines.push({ text: 'stopped; the blocks created so far are kept and can be removed in Blocks', bad: true });
        setLog([...lines]);
        return setBusy(false);
      }
      applyPatch([a.body]);
    }
    lines.push({ text: `done: ${choice.mode} temperature control is running. See the Overview.` });
    setLog([...lines]);
    setBusy(false);
  };

  return (
    <section class="panel" data-testid="wizard">
      <h2>Fermentation fridge</h2>
      <p class="muted">
        Creates the quick-start chain: beer and fridge setpoints, heater and cooler with PWM and PID, a mutex so they
        never run together, and a temperature profile.
      </p>
      <form onSubmit={run} class="grid">
        <label>
          Name prefix{' '}
          <input value={prefix} onInput={(e) => setTypedPrefix((e.target as HTMLInputElement).value)} name="prefix" />
        </label>
        <label>
          Beer sensor
          <select value={form.beerSensor} onChange={set('beerSensor')} name="beerSensor">
            <option value="">choose…</option>
            {sensors.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Fridge sensor
          <select value={form.fridgeSensor} onChange={set('fridgeSensor')} name="fridgeSensor">
            <option value="">choose…</option>
            {sensors.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Heater output
          <select value={form.heat} onChange={set('heat')} name="heat">
            <option value="">choose…</option>
            {channels.map((c) => (
              <option value={chKey(c)}>{channelLabel(c)}</option>
            ))}
          </select>
        </label>
        <label>
          Cooler output
          <select value={form.cool} onChange={set('cool')} name="cool">
            <option value="">choose…</option>
            {channels.map((c) => (
              <option value={chKey(c)}>{channelLabel(c)}</option>
            ))}
          </select>
        </label>
        <label>
          Beer setting ({unitLabel(unit)}){' '}
          <input
            inputMode="decimal"
            value={shownSetting('beerSetting')}
            onInput={setSetting('beerSetting')}
            name="beerSetting"
          />
        </label>
        <label>
          Fridge setting ({unitLabel(unit)}){' '}
          <input
            inputMode="decimal"
            value={shownSetting('fridgeSetting')}
            onInput={setSetting('fridgeSetting')}
            name="fridgeSetting"
          />
        </label>
        <label>
          Control
          <select value={form.mode} onChange={set('mode')} name="mode">
            <option value="beer">beer temperature</option>
            <option value="fridge">fridge temperature</option>
          </select>
        </label>
        {sensors.length < 2 && <p class="hint bad">Fewer than two temperature sensors: use Discover first.</p>}
        {problems.length > 0 && <p class="hint">{problems.join('; ')}</p>}
        <button type="submit" disabled={busy || problems.length > 0} data-testid="wizard-create">
          Create fermentation fridge
        </button>
      </form>
      <ul class="log" data-testid="wizard-log">
        {log.map((l) => (
          <li class={l.bad ? 'bad' : 'good'}>{l.text}</li>
        ))}
      </ul>
    </section>
  );
}

/** What makes a file a backup before the service is asked: an object with a list of blocks. */
export function backupProblem(parsed: unknown): string | null {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return 'it is not a backup (a JSON object with a "blocks" list)';
  const blocks = (parsed as { blocks?: unknown }).blocks;
  if (!Array.isArray(blocks)) return 'it has no "blocks" list, so it is not a backup';
  if (blocks.length === 0)
    return 'it holds no block, and restoring it would delete every block (to do that, delete them all)';
  return null;
}

/** User blocks (system blocks have nids below 100 and are kept by a restore, only their settings change). */
const userBlocks = (blocks: unknown[]) =>
  blocks.filter((b) => typeof (b as { nid?: unknown }).nid === 'number' && (b as { nid: number }).nid >= 100).length;
const blocksWord = (n: number) => `${n} block${n === 1 ? '' : 's'}`;

/** What a restore answered: failures (not loaded) and warnings (loaded, something left out) apart. */
interface LoadAnswer {
  messages?: string[];
  failures?: string[];
  warnings?: string[];
}

/** The words and level of a restore's answer: warnings are not a success, failures are not a warning. */
export function restoreAnswer(file: string, a: LoadAnswer): { text: string; level: Level } {
  // A service that sends only `messages` (Brewblox's one list) has them all read as failures.
  const failures = a.failures ?? (a.warnings ? [] : (a.messages ?? []));
  const warnings = a.warnings ?? [];
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  if (failures.length)
    return {
      text: `loaded ${file} only in part: ${count(failures.length, 'failure')}: ${failures.join('; ')}${warnings.length ? `; ${count(warnings.length, 'warning')}: ${warnings.join('; ')}` : ''}`,
      level: 'bad',
    };
  if (warnings.length)
    return { text: `loaded ${file} with ${count(warnings.length, 'warning')}: ${warnings.join('; ')}`, level: 'warn' };
  return { text: `loaded ${file}`, level: 'good' };
}

type Level = 'good' | 'warn' | 'bad';

function Backup() {
  const [text, setText] = useState<{ text: string; level: Level } | null>(null);
  const say = (t: string, bad = false) => setText({ text: t, level: bad ? 'bad' : 'good' });
  const save = async () => {
    const a = await controller('blocks/backup/save');
    if (!a.ok) return say(a.error, true);
    download(
      `${serviceId()}-backup-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.json`,
      JSON.stringify(a.body, null, 2),
    );
    say('backup downloaded');
  };
  const load = async (e: Event) => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await file.text());
    } catch (err) {
      return say(
        `${file.name} was not loaded: it is not valid JSON (${(err as Error).message}). Nothing was changed.`,
        true,
      );
    }
    const problem = backupProblem(parsed);
    if (problem) return say(`${file.name} was not loaded: ${problem}. Nothing was changed.`, true);
    const current = await controller<Block[]>('blocks/all/read');
    if (!current.ok)
      return say(
        `${file.name} was not loaded: the current blocks cannot be counted (${current.error}). Nothing was changed.`,
        true,
      );
    const incoming = userBlocks((parsed as { blocks: unknown[] }).blocks);
    if (
      !confirm(
        `Replace the ${blocksWord(userBlocks(current.body))} on this controller with the ${blocksWord(incoming)} in ${file.name}, and every setting with the file's?`,
      )
    ) {
      return say('restore cancelled');
    }
    say('loading…');
    const a = await controller<LoadAnswer>('blocks/backup/load', parsed);
    if (!a.ok) return say(`${file.name} was not loaded: ${a.error}`, true);
    const all = await controller<Block[]>('blocks/all/read');
    if (all.ok) applyAll(all.body, undefined, true);
    setText(restoreAnswer(file.name, a.body));
  };
  return (
    <section class="panel" data-testid="backup">
      <h2>Backup</h2>
      <button onClick={() => void save()}>Download backup</button>{' '}
      <label class="file">
        Restore from file… <input type="file" accept="application/json,.json" onChange={(e) => void load(e)} />
      </label>
      {text && (
        <p class={`answer ${text.level}`} role="status" data-level={text.level}>
          {text.text}
        </p>
      )}
    </section>
  );
}

export function Setup() {
  // The unit the service speaks now (its status): also when it was changed elsewhere, or only
  // in the Brewblox UI's global units document.
  const unit = prefsOf(useLive().status).temperature;
  return (
    <div class="setup">
      <Discovery />
      <Wizard unit={unit} />
      <Units unit={unit} />
      <Backup />
    </div>
  );
}
