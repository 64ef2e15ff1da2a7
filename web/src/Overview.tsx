// The live overview: one compact card per block, grouped by role, with the problems a brewer
// must see and the everyday controls (setpoint, enable, manual output, profile start).
import { useEffect, useState } from 'preact/hooks';
import { patchBlock, type Block } from './api';
import {
  fmtNumber,
  garbledDevices,
  groupByRole,
  isLetGo,
  isQuantity,
  problemsOf,
  qtyValue,
  ROLE_TITLES,
  unitLabel,
  type Role,
} from './blocks';
import { cardHeadline, driverOf, fieldLabel, mutexStory, outputStory } from './explain';
import { prepainted } from './early';
import { hexAddress, oneWireName } from './device-words';
import { useLive } from './live';
import { rangeOf, type TypeDoc } from './type-doc';
import { prefsOf, shown, type UnitPrefs } from './units';
import { useTypeDoc } from './use-type-doc';
import { ControlSwitch } from './ControlSwitch';
import { lazy } from './lazy';
import { Sparkline, useSparklines } from './Sparkline';
import { Facts } from './Facts.js';
import { AnswerLine, type CardAnswer, NumberField, Toggle, useAnswer } from './CardFields';
import { Rename } from './Rename';

// Only a controller with a fermentation profile needs its card's code.
const ProfileCard = lazy(() => import('./Profile').then((m) => m.ProfileCard));
// Nor does a PID's tuning panel, which only PID cards show.
const TuningPanel = lazy(() => import('./Tuning').then((m) => m.TuningPanel), null);

/** Why a driven block offers no manual control: the same words for outputs and setpoints. */
function DrivenNote({ driver, what = 'switchable' }: { driver: string; what?: 'switchable' | 'set' }) {
  return (
    <p class="muted" data-testid="manual-note">
      Not {what === 'set' ? 'set' : 'switchable'} by hand while {driver} drives it: disable {driver} first.
    </p>
  );
}

function Controls({
  block,
  answer,
  blocks,
  types,
  prefs,
}: {
  block: Block;
  answer: CardAnswer;
  blocks: Map<string, Block>;
  types: TypeDoc;
  prefs: UnitPrefs;
}) {
  const d = block.data;
  const { run } = answer;
  const patch = (data: Record<string, unknown>, okText?: string) => run(patchBlock(block, data), okText);
  switch (block.type) {
    case 'SetpointSensorPair': {
      const unit = isQuantity(d.storedSetting) ? d.storedSetting.unit : 'degC';
      // The field table's range (in the API document, in °C), in the unit the service speaks now.
      const range = rangeOf(types.data.get(block.type)?.properties?.storedSetting);
      const min = range.min === undefined ? undefined : shown(range.min, 'degC', prefs);
      const max = range.max === undefined ? undefined : shown(range.max, 'degC', prefs);
      const driver = driverOf(block);
      // Let go by what drove it (a profile deleted or turned off), it has no setting until one is
      // set: the field is empty, not its old setting by hand.
      const letGo = isLetGo(d);
      const own = qtyValue(d.storedSetting);
      return (
        <>
          {driver ? (
            <DrivenNote driver={driver} what="set" />
          ) : (
            <NumberField
              label="Setting"
              value={letGo ? null : own}
              placeholder={letGo ? 'none' : undefined}
              unit={unit}
              min={min}
              max={max}
              testid={`setting-${block.id}`}
              answer={answer}
              onSave={(v) =>
                patch(
                  { storedSetting: v },
                  letGo ? `${block.id} holds ${fmtNumber(v, 1)} ${unitLabel(unit)}` : undefined,
                )
              }
            />
          )}
          {letGo && own !== null && (
            <p class="muted" data-testid="let-go-note">
              Its earlier setting by hand, {fmtNumber(own, 1)} {unitLabel(unit)}, is not used.
            </p>
          )}
          <Toggle label="Enabled" on={d.enabled === true} onChange={(on) => patch({ enabled: on })} />
        </>
      );
    }
    case 'Pid':
      return (
        <>
          <Toggle label="Control enabled" on={d.enabled === true} onChange={(on) => patch({ enabled: on })} />
          <TuningPanel block={block} answer={answer} />
        </>
      );
    case 'ActuatorPwm': {
      const story = outputStory(block, blocks);
      // Let go by its PID (disabled, deleted, relinked), as a setpoint by its profile: no setting
      // until one is set here, and the old manual one is not shown as if it were used.
      const letGo = isLetGo(d);
      const own = typeof d.storedSetting === 'number' ? d.storedSetting : null;
      return (
        <>
          <OutputStoryView story={story} />
          {story.driver ? (
            // The same rule as a driven actuator's On/Off: a setting here would not be used.
            <DrivenNote driver={story.driver} what="set" />
          ) : (
            <NumberField
              label="Manual setting"
              value={letGo ? null : own}
              placeholder={letGo ? 'none' : undefined}
              unit="%"
              min={0}
              max={100}
              testid={`setting-${block.id}`}
              answer={answer}
              onSave={(v) => patch({ storedSetting: v }, letGo ? `${block.id} holds ${fmtNumber(v, 0)} %` : undefined)}
            />
          )}
          {letGo && own !== null && (
            <p class="muted" data-testid="let-go-note">
              Its earlier setting by hand, {fmtNumber(own, 0)} %, is not used.
            </p>
          )}
          <Toggle label="Enabled" on={d.enabled === true} onChange={(on) => patch({ enabled: on })} />
        </>
      );
    }
    case 'DigitalActuator':
    case 'MotorValve': {
      const story = outputStory(block, blocks);
      return (
        <>
          <OutputStoryView story={story} />
          {story.driver ? (
            // A claimed output follows its driver: On/Off here would be undone at the next update.
            <DrivenNote driver={story.driver} />
          ) : (
            <div class="buttons" role="group" aria-label={`switch ${block.id} by hand`}>
              <button onClick={() => patch({ storedState: 'STATE_ACTIVE' }, 'asked on')}>On</button>
              <button onClick={() => patch({ storedState: 'STATE_INACTIVE' }, 'asked off')}>Off</button>
            </div>
          )}
        </>
      );
    }
    case 'Mutex': {
      // The headline says who holds it or who waits; with several waiting, all of them.
      const m = mutexStory(block, blocks);
      if (m.waiting.length < 2) return null;
      return (
        <p data-testid="mutex-story">
          {m.holder ? `Held by ${m.holder}; ` : ''}
          {m.waiting.join('; ')}.
        </p>
      );
    }
    case 'SetpointProfile':
      return <ProfileCard block={block} answer={answer} />;
    default:
      return null;
  }
}

function OutputStoryView({ story }: { story: ReturnType<typeof outputStory> }) {
  return (
    <div class="story" data-testid="output-story">
      <span data-testid="output-doing">Output: {story.doing}</span>
      <ul>
        {story.why.map((w) => (
          <li>{w}</li>
        ))}
      </ul>
    </div>
  );
}

function Details({ block }: { block: Block }) {
  const d = block.data;
  const rows: Array<[string, string]> = [];
  // Chips on I2C: where they are, the address as the datasheet writes it.
  if (typeof d.bus === 'string' && typeof d.address === 'number')
    rows.push([
      'Address',
      `${hexAddress(d.address)} on bus ${d.bus}${typeof d.chip === 'string' ? ` (${d.chip})` : ''}`,
    ]);
  if ('humidity' in d) rows.push(['Humidity', d.humidity === null ? '—' : `${fmtNumber(qtyValue(d.humidity), 1)} %RH`]);
  if ('pressure' in d) rows.push(['Pressure', d.pressure === null ? '—' : `${fmtNumber(qtyValue(d.pressure), 1)} hPa`]);
  if (block.type === 'AnalogSensorI2c')
    rows.push(['Input', `AIN${String(d.channel ?? 0)} · ${fmtNumber(qtyValue(d.volts), 3)} V`]);
  if (qtyValue(d.coldJunction) !== null) rows.push(['Cold junction', fmt(d.coldJunction)]);
  if (block.type === 'SetpointSensorPair')
    rows.push([fieldLabel('setting'), fmt(d.setting)], [fieldLabel('sensorId'), linkId(d.sensorId)]);
  if (block.type === 'Pid')
    rows.push([fieldLabel('inputId'), linkId(d.inputId)], [fieldLabel('outputId'), linkId(d.outputId)]);
  if (block.type === 'ActuatorPwm')
    rows.push([fieldLabel('setting'), `${fmt(d.setting)} %`], [fieldLabel('actuatorId'), linkId(d.actuatorId)]);
  if (block.type === 'DigitalActuator') rows.push(['Channel', `${linkId(d.hwDevice)} #${String(d.channel)}`]);
  if (typeof d.address === 'string' && d.address) rows.push(['Address', oneWireName(d.address)]);
  return rows.length ? <Facts rows={rows} /> : null;
}

const fmt = (v: unknown) => {
  const n = qtyValue(v);
  return n === null ? '—' : `${Math.round(n * 10) / 10}${isQuantity(v) ? ` ${unitLabel(v.unit)}` : ''}`;
};
const linkId = (v: unknown) =>
  v && typeof v === 'object' && 'id' in v ? String((v as { id: unknown }).id ?? '—') : '—';

function Card({
  block,
  role,
  blocks,
  spark,
  types,
  prefs,
  garbled,
}: {
  block: Block;
  role: Role;
  blocks: Map<string, Block>;
  spark?: Array<number | null>;
  types: TypeDoc;
  prefs: UnitPrefs;
  /** The devices that answer with damaged replies (garbledDevices of the status). */
  garbled: ReadonlySet<string>;
}) {
  const answer = useAnswer();
  const exists = (id: string) => blocks.has(id);
  const problems = problemsOf(block, role, exists, fieldLabel, garbled);
  const level = problems.some((p) => p.level === 'error')
    ? 'error'
    : problems.some((p) => p.level === 'warn')
      ? 'warn'
      : '';
  return (
    <section class={`card ${level}`} data-block={block.id} aria-label={block.id}>
      <div class="card-head">
        <a class="name" href={`#/block/${encodeURIComponent(block.id)}`} title="edit this block">
          {block.id}
        </a>
        <span class="type">{block.type}</span>
      </div>
      <div class="big" data-testid="headline">
        {cardHeadline(block, role, blocks)}
      </div>
      {spark && <Sparkline values={spark} label={`${block.id}, last hour`} />}
      <Details block={block} />
      {problems.length > 0 && (
        <ul class="problems">
          {problems.map((p) => (
            <li class={p.level}>
              <span class="level">{p.level === 'error' ? 'Error: ' : p.level === 'warn' ? 'Warning: ' : ''}</span>
              {p.text}
            </li>
          ))}
        </ul>
      )}
      <Controls block={block} answer={answer} blocks={blocks} types={types} prefs={prefs} />
      {role !== 'system' && <Rename block={block} role={role} answer={answer} />}
      <AnswerLine said={answer.said} />
    </section>
  );
}

export function Overview() {
  const live = useLive();
  const types = useTypeDoc();
  const groups = new Map(live.loaded && types ? groupByRole(live.blocks.values(), types.roles) : []);
  // Called on every render (hooks keep their order), with no ids until the blocks are there.
  const sparks = useSparklines(
    [...(groups.get('sensor') ?? []), ...(groups.get('setpoint') ?? [])].map((b) => b.id),
    prefsOf(live.status).temperature,
  );
  const ready = live.loaded && types !== null;
  // The first group shows first, the others a frame later: a slow phone shows the first screen
  // without building every card before it. Not after a prepaint: it showed them all already.
  const [all, setAll] = useState(prepainted);
  useEffect(() => {
    if (!ready || all) return;
    const frame = requestAnimationFrame(() => setAll(true));
    return () => cancelAnimationFrame(frame);
  }, [ready]);
  if (!ready) return <p>Waiting for the controller…</p>;
  const shown = [...groups.keys()].slice(0, all ? undefined : 1);
  const garbled = garbledDevices(live.status);
  return (
    <div class={live.online ? '' : 'stale'}>
      <ControlSwitch />
      {live.blocks.size <= 1 && (
        <p class="banner">
          No blocks yet. Use <a href="#/setup">Setup</a> to discover hardware and create a fermentation fridge.
        </p>
      )}
      {shown.map((r) => (
        <section class="group" data-role={r}>
          <h2>{ROLE_TITLES[r]}</h2>
          <div class="cards">
            {groups.get(r)!.map((b) => (
              <Card
                key={b.id}
                block={b}
                role={r}
                blocks={live.blocks}
                spark={sparks.get(b.id)}
                types={types}
                prefs={prefsOf(live.status)}
                garbled={garbled}
              />
            ))}
          </div>
        </section>
      ))}
    </div>
  );
}
