// The alerts page: the active alerts (with Acknowledge), the channels (AlertChannels.tsx), the
// recent events from GET alerts (fired, resolved, acknowledged, delivered or not and why), and a
// form for the main rules (GET|PUT alerts/rules; the service checks them and its 422 is shown in words).
import { useEffect, useState } from 'preact/hooks';
import { controllerUrl, get, post, put, type Answer } from './api';
import { AlertChannels } from './AlertChannels';
import { activeAlerts, activeFor, type ActiveSummary } from './AlertBanner';
import { useLive } from './live';
import { fromInternal, prefsOf, retyped, toInternal, userUnit, type UnitPrefs } from './units';
import { unitLabel } from './blocks';
import { numberOrText } from './typed-number';

interface HistoryEntry {
  at: string;
  event: string;
  key: string;
  channel?: string;
  text: string;
  error?: string;
}

interface AlertsAnswer {
  list?: ActiveSummary[];
  history: HistoryEntry[];
  channels: string[];
  outbox: { pending: number; limit: number; dropped: number };
}

type Doc = Record<string, any>;

interface RulesAnswer {
  rules: Doc;
  document: Doc | null;
  error: string | null;
}

/** Outputs the "on too long" rule applies to (the digital actuator interface). */
const OUTPUT_TYPES = new Set(['DigitalActuator', 'MotorValve']);

function Active({ list, onChange }: { list: ActiveSummary[]; onChange: () => void }) {
  const [answer, setAnswer] = useState<{ text: string; bad: boolean } | null>(null);
  const acknowledge = async (key: string) => {
    const a = await post<{ key: string }>(controllerUrl('alerts/acknowledge'), { key });
    setAnswer(a.ok ? { text: `acknowledged: no more reminders for ${key}`, bad: false } : { text: a.error, bad: true });
    onChange();
  };
  return (
    <section class="panel" data-testid="alerts-active">
      <h2>Active alerts</h2>
      {!list.length && <p class="muted">No active alerts.</p>}
      <table class="hw">
        {list.map((a) => (
          <tr data-alert={a.key}>
            <td>
              <strong>{a.title}</strong>
              {a.blockId && ` — ${a.blockId}`}
              <div>{a.text}</div>
              <div class="muted">
                active for {activeFor(a)}, since {a.stopUnknown ? 'before ' : ''}
                {new Date(a.since).toLocaleString()}
                {a.count > 1 && `, went bad ${a.count} times`}
              </div>
            </td>
            <td>
              {a.acknowledged ? (
                <span class="muted">acknowledged</span>
              ) : (
                <button onClick={() => void acknowledge(a.key)}>Acknowledge</button>
              )}
            </td>
          </tr>
        ))}
      </table>
      {answer && (
        <p class={`answer ${answer.bad ? 'bad' : 'good'}`} role="status">
          {answer.text}
        </p>
      )}
    </section>
  );
}

function History({ data }: { data: AlertsAnswer }) {
  return (
    <section class="panel" data-testid="alerts-history">
      <h2>Recent events</h2>
      <p class="muted">
        Channels: {data.channels.length ? data.channels.join(', ') : 'none configured'}; waiting to be sent:{' '}
        {data.outbox.pending}
        {data.outbox.dropped ? `; dropped since start: ${data.outbox.dropped}` : ''}
      </p>
      {!data.history.length && <p class="muted">Nothing yet.</p>}
      <table class="hw">
        {data.history.map((h) => (
          <tr data-event={h.event}>
            <td>{new Date(h.at).toLocaleString()}</td>
            <td>{h.event}</td>
            <td>{h.channel ?? ''}</td>
            <td>
              {h.text}
              {h.error && <span class="bad"> ({h.error})</span>}
            </td>
          </tr>
        ))}
      </table>
    </section>
  );
}

function RulesForm({ prefs, outputs }: { prefs: UnitPrefs; outputs: string[] }) {
  const [loaded, setLoaded] = useState<RulesAnswer | null>(null);
  const [form, setForm] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<{ text: string; bad: boolean } | null>(null);
  // The rules API speaks °C (a band is a temperature difference); the form, the user's unit. The
  // band's text is kept with the unit it is written in, and shown converted when the user's unit
  // changes meanwhile (the form is not read again then: what was typed in it stays).
  const bandUnit = userUnit('deltaTemp', prefs);
  const [bandTypedIn, setBandTypedIn] = useState(bandUnit);
  const band = retyped(form.band ?? '', bandTypedIn, bandUnit);
  const deltaIn = (c: number) => String(Number(fromInternal(c, 'deltaTemp', prefs).toFixed(2)));
  const fill = (r: RulesAnswer) => {
    setLoaded(r);
    setBandTypedIn(bandUnit);
    const f: Record<string, string> = {
      sensorNullAfter: String(r.rules.sensorNull.after),
      band: deltaIn(r.rules.setpointBand.band),
      bandAfter: String(r.rules.setpointBand.after),
      noSettingAfter: String(r.rules.noSetting.after),
      sequenceErrorAfter: String(r.rules.sequenceError.after),
      remindHours: String(r.rules.remindHours),
    };
    // Every block's value, not only the outputs known now: the live blocks may arrive later.
    for (const [id, rule] of Object.entries(r.rules.blocks as Record<string, { onAfter?: number }>))
      if (rule.onAfter !== undefined) f[`onAfter:${id}`] = String(rule.onAfter);
    setForm(f);
  };
  const load = async () => {
    const a: Answer<RulesAnswer> = await get<RulesAnswer>(controllerUrl('alerts/rules'));
    if (a.ok) fill(a.body);
    else setAnswer({ text: a.error, bad: true });
  };
  useEffect(() => void load(), []);
  const set = (k: string) => (e: Event) => {
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
    // What was answered is about the rules saved: an edit since is not saved.
    setAnswer(null);
    if (k === 'band') setBandTypedIn(bandUnit);
  };

  const save = async (e: Event) => {
    e.preventDefault();
    const doc: Doc = structuredClone(loaded?.document ?? {});
    const typed = numberOrText(band);
    doc.sensorNull = { ...doc.sensorNull, after: numberOrText(form.sensorNullAfter!) };
    doc.setpointBand = {
      ...doc.setpointBand,
      band: typeof typed === 'number' ? toInternal(typed, 'deltaTemp', prefs) : typed,
      after: numberOrText(form.bandAfter!),
    };
    doc.noSetting = { ...doc.noSetting, after: numberOrText(form.noSettingAfter!) };
    // A rule added since the release before is written only once set: that release refuses a
    // document with a key it does not know, and rolled back to would run every rule at its default.
    const sequenceErrorAfter = numberOrText(form.sequenceErrorAfter!);
    if (doc.sequenceError !== undefined || sequenceErrorAfter !== loaded?.rules.sequenceError.after)
      doc.sequenceError = { ...doc.sequenceError, after: sequenceErrorAfter };
    doc.remindHours = numberOrText(form.remindHours!);
    doc.blocks = { ...doc.blocks };
    for (const id of outputs) {
      const v = (form[`onAfter:${id}`] ?? '').trim();
      const { onAfter: _old, ...rest } = doc.blocks[id] ?? {};
      doc.blocks[id] = v === '' ? rest : { ...rest, onAfter: numberOrText(v) };
      if (!Object.keys(doc.blocks[id]).length) delete doc.blocks[id];
    }
    const a = await put(controllerUrl('alerts/rules'), doc);
    if (!a.ok) return setAnswer({ text: `not saved: ${a.error}`, bad: true });
    setAnswer({ text: 'saved', bad: false });
    await load();
  };

  const field = (k: string, label: string, unit: string) => (
    <label>
      {label}
      <span>
        <input name={k} value={k === 'band' ? band : (form[k] ?? '')} onInput={set(k)} inputMode="decimal" />{' '}
        <span class="unit">{unit}</span>
      </span>
    </label>
  );
  return (
    <section class="panel" data-testid="alert-rules">
      <h2>Rules</h2>
      {loaded?.error && <p class="bad">{`${loaded.error.charAt(0).toUpperCase()}${loaded.error.slice(1)}.`}</p>}
      <form onSubmit={(e) => void save(e)}>
        <div class="grid">
          {field('sensorNullAfter', 'Sensor reads nothing for', 's')}
          {field('band', 'Setpoint band (±)', unitLabel(userUnit('deltaTemp', prefs)))}
          {field('bandAfter', 'Out of band for', 's')}
          {field('noSettingAfter', 'Setpoint without a setting for', 's')}
          {field('sequenceErrorAfter', 'Sequence stopped in error for', 's')}
          {field('remindHours', 'Remind every', 'h')}
        </div>
        {outputs.length > 0 && (
          <h3 class="muted">Output on too long (empty: the default, {loaded?.rules.outputOn.after || 'off'})</h3>
        )}
        <div class="grid">{outputs.map((id) => field(`onAfter:${id}`, `${id} on for`, 's'))}</div>
        <div class="buttons">
          <button type="submit">Save rules</button>
        </div>
      </form>
      {answer && (
        <p class={`answer ${answer.bad ? 'bad' : 'good'}`} role="status" data-testid="rules-answer">
          {answer.text}
        </p>
      )}
    </section>
  );
}

export function Alerts() {
  const live = useLive();
  const [data, setData] = useState<AlertsAnswer | null>(null);
  const [error, setError] = useState('');
  const load = async () => {
    const a = await get<AlertsAnswer>(controllerUrl('alerts'));
    if (a.ok) setData(a.body);
    setError(a.ok ? '' : a.error);
  };
  // A fresh read with each status event (every emit interval) while the page is open.
  useEffect(() => void load(), [live.status]);
  const outputs = [...live.blocks.values()]
    .filter((b) => OUTPUT_TYPES.has(b.type))
    .map((b) => b.id)
    .sort();

  return (
    <div class="alerts">
      {error && <p class="banner">{error}</p>}
      <Active list={data?.list ?? activeAlerts(live.status)} onChange={() => void load()} />
      <AlertChannels onChange={() => void load()} />
      <RulesForm prefs={prefsOf(live.status)} outputs={outputs} />
      {data && <History data={data} />}
    </div>
  );
}
