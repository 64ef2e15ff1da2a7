// The live overview: one compact card per block, grouped by role, with the problems a brewer
// must see and the everyday controls (setpoint, enable, manual output, profile start).
import { useState } from 'preact/hooks';
import { patchBlock, type Answer, type Block } from './api';
import { headline, isQuantity, problemsOf, qtyValue, roleOf, ROLE_TITLES, stateWord, unitLabel, type Role } from './blocks';
import { applyPatch, useLive } from './live';
import { useTypeDoc } from './use-type-doc';

const ORDER: Role[] = ['sensor', 'setpoint', 'controller', 'output', 'io', 'system'];

/** Runs a REST call, shows the server's answer under the card, and applies the changed block. */
export function useAnswer(): [string, boolean, (p: Promise<Answer<Block>>, okText?: string) => Promise<boolean>] {
  const [text, setText] = useState('');
  const [bad, setBad] = useState(false);
  const run = async (p: Promise<Answer<Block>>, okText = 'saved') => {
    setText('sending…');
    setBad(false);
    const a = await p;
    if (a.ok && a.body && typeof a.body === 'object' && 'id' in a.body) applyPatch([a.body]);
    setText(a.ok ? okText : a.error);
    setBad(!a.ok);
    return a.ok;
  };
  return [text, bad, run];
}

function NumberField(props: { label: string; value: number | null; unit: string; min?: number; max?: number; onSave: (v: number) => void; testid?: string }) {
  const [draft, setDraft] = useState<string | null>(null);
  const [hint, setHint] = useState('');
  const shown = draft ?? (props.value === null ? '' : String(Math.round(props.value * 100) / 100));
  const save = (e: Event) => {
    e.preventDefault();
    const v = Number(shown.replace(',', '.'));
    if (shown.trim() === '' || !Number.isFinite(v)) return setHint('enter a number');
    if ((props.min !== undefined && v < props.min) || (props.max !== undefined && v > props.max)) return setHint(`between ${props.min} and ${props.max}`);
    setHint('');
    setDraft(null);
    props.onSave(v);
  };
  return (
    <form class="field" onSubmit={save}>
      <label>
        {props.label}
        <input inputMode="decimal" value={shown} data-testid={props.testid} onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
        <span class="unit">{unitLabel(props.unit)}</span>
      </label>
      <button type="submit">Set</button>
      {hint && <span class="hint bad">{hint}</span>}
    </form>
  );
}

function Toggle(props: { label: string; on: boolean; onChange: (on: boolean) => void }) {
  return (
    <label class="toggle">
      <input type="checkbox" checked={props.on} onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)} /> {props.label}
    </label>
  );
}

function Controls({ block, run }: { block: Block; run: ReturnType<typeof useAnswer>[2] }) {
  const d = block.data;
  const patch = (data: Record<string, unknown>, okText?: string) => run(patchBlock(block, data), okText);
  switch (block.type) {
    case 'SetpointSensorPair': {
      const unit = isQuantity(d.storedSetting) ? d.storedSetting.unit : 'degC';
      // -50 °C to 150 °C, in the unit the service speaks now.
      const [min, max] = unit === 'degF' ? [-58, 302] : [-50, 150];
      return (
        <>
          <NumberField label="Setting" value={qtyValue(d.storedSetting)} unit={unit} min={min} max={max} testid={`setting-${block.id}`} onSave={(v) => patch({ storedSetting: v })} />
          <Toggle label="enabled" on={d.enabled === true} onChange={(on) => patch({ enabled: on })} />
        </>
      );
    }
    case 'Pid':
      return <Toggle label="control enabled" on={d.enabled === true} onChange={(on) => patch({ enabled: on })} />;
    case 'ActuatorPwm':
      return (
        <>
          <NumberField label="Manual" value={typeof d.storedSetting === 'number' ? d.storedSetting : null} unit="%" min={0} max={100} onSave={(v) => patch({ storedSetting: v })} />
          <Toggle label="enabled" on={d.enabled === true} onChange={(on) => patch({ enabled: on })} />
        </>
      );
    case 'DigitalActuator':
    case 'MotorValve':
      return (
        <div class="buttons">
          <button onClick={() => patch({ storedState: 'STATE_ACTIVE' }, 'switched on')}>On</button>
          <button onClick={() => patch({ storedState: 'STATE_INACTIVE' }, 'switched off')}>Off</button>
          <span class="muted">manual: {stateWord(d.storedState)}</span>
        </div>
      );
    case 'SetpointProfile':
      return (
        <div class="buttons">
          <button onClick={() => patch({ enabled: true, start: new Date().toISOString() }, 'profile started')}>Start profile now</button>
          <button disabled={d.enabled !== true} onClick={() => patch({ enabled: false }, 'profile stopped')}>Stop</button>
        </div>
      );
    default:
      return null;
  }
}

function Details({ block }: { block: Block }) {
  const d = block.data;
  const rows: Array<[string, string]> = [];
  if (block.type === 'SetpointSensorPair') rows.push(['setting', fmt(d.setting)], ['sensor', linkId(d.sensorId)]);
  if (block.type === 'Pid') rows.push(['input', `${fmt(d.inputValue)} → ${fmt(d.inputSetting)}`], ['output', linkId(d.outputId)]);
  if (block.type === 'ActuatorPwm') rows.push(['setting', `${fmt(d.setting)} %`], ['actuator', linkId(d.actuatorId)]);
  if (block.type === 'DigitalActuator') rows.push(['channel', `${linkId(d.hwDevice)} #${String(d.channel)}`]);
  if (block.type === 'SetpointProfile') rows.push(['target', linkId(d.targetId)]);
  if (block.type.startsWith('TempSensor') && 'address' in d) rows.push(['address', String(d.address)]);
  return rows.length ? (
    <dl>
      {rows.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </>
      ))}
    </dl>
  ) : null;
}

const fmt = (v: unknown) => {
  const n = qtyValue(v);
  return n === null ? '—' : `${Math.round(n * 10) / 10}${isQuantity(v) ? ` ${unitLabel(v.unit)}` : ''}`;
};
const linkId = (v: unknown) => (v && typeof v === 'object' && 'id' in v ? String((v as { id: unknown }).id ?? '—') : '—');

function Card({ block, role, exists }: { block: Block; role: Role; exists: (id: string) => boolean }) {
  const [text, bad, run] = useAnswer();
  const problems = problemsOf(block, role, exists);
  const level = problems.some((p) => p.level === 'error') ? 'error' : problems.some((p) => p.level === 'warn') ? 'warn' : '';
  return (
    <section class={`card ${level}`} data-block={block.id}>
      <div class="card-head">
        <a class="name" href={`#/block/${encodeURIComponent(block.id)}`} title="edit this block">
          {block.id}
        </a>
        <span class="type">{block.type}</span>
      </div>
      <div class="big" data-testid="headline">
        {headline(block, role)}
      </div>
      <Details block={block} />
      {problems.length > 0 && (
        <ul class="problems">
          {problems.map((p) => (
            <li class={p.level}>{p.text}</li>
          ))}
        </ul>
      )}
      <Controls block={block} run={run} />
      {text && (
        <p class={`answer ${bad ? 'bad' : 'good'}`} role="status">
          {text}
        </p>
      )}
    </section>
  );
}

export function Overview() {
  const live = useLive();
  const types = useTypeDoc();
  if (!live.loaded || !types) return <p>Waiting for the controller…</p>;
  const groups = new Map<Role, Block[]>();
  for (const b of live.blocks.values()) {
    const r = roleOf(b, types.roles);
    groups.set(r, [...(groups.get(r) ?? []), b]);
  }
  const exists = (id: string) => live.blocks.has(id);
  return (
    <div class={live.online ? '' : 'stale'}>
      {live.blocks.size <= 1 && (
        <p class="banner">
          No blocks yet. Use <a href="#/setup">Setup</a> to discover hardware and create a fermentation fridge.
        </p>
      )}
      {ORDER.filter((r) => groups.has(r)).map((r) => (
        <section class="group" data-role={r}>
          <h2>{ROLE_TITLES[r]}</h2>
          <div class="cards">
            {groups
              .get(r)!
              .sort((a, b) => (a.nid ?? 0) - (b.nid ?? 0))
              .map((b) => (
                <Card key={b.id} block={b} role={r} exists={exists} />
              ))}
          </div>
        </section>
      ))}
    </div>
  );
}
