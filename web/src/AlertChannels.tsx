// The channels section of the Alerts page: every channel kind the service offers (GET
// alerts/channels), the ones in force with where they come from, Test (POST alerts/test?channel=),
// and for the ones set up here: Edit and Remove (PUT / DELETE alerts/channels/<kind>). The form
// is built from the kind's schema, so the page and the config file follow one rule; the service
// checks it and its 422 names the field. Secrets are write-only: the page only ever learns
// whether one is set (and, for a URL, its host), and a secret left empty keeps the stored one.
import { useEffect, useState } from 'preact/hooks';
import { controllerUrl, del, get, post, put, type Answer } from './api';
import { numberOrText } from './typed-number';

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  pattern?: string;
  anyOf?: FieldSchema[];
  minimum?: number;
  maximum?: number;
  'x-secret'?: boolean;
  patternProperties?: Record<string, FieldSchema>;
}

interface ChannelView {
  name: string;
  title: string;
  source: 'config' | 'dashboard' | null;
  settings: Record<string, unknown> | null;
  secrets: Record<string, { set: boolean; host?: string }>;
  overridden: boolean;
  error: string | null;
  schema: { properties: Record<string, FieldSchema>; required?: string[] };
}

type Said = { text: string; bad: boolean } | null;

const isList = (s: FieldSchema) => s.anyOf?.some((o) => o.type === 'array') ?? false;
const isMap = (s: FieldSchema) => s.type === 'object';
const label = (key: string, s: FieldSchema) => s.title ?? key;

/** A value of the settings as the form shows it. */
function shown(s: FieldSchema, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.join(', ');
  return String(v);
}

/** What the form's text becomes in the body, or undefined to leave the field out. */
function parsed(s: FieldSchema, text: string): unknown {
  const t = text.trim();
  if (isMap(s)) {
    if (!t) return undefined;
    const out: Record<string, string> = {};
    for (const line of t.split('\n')) {
      const at = line.indexOf(':');
      if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      else if (line.trim()) out[line.trim()] = '';
    }
    return out;
  }
  if (!t) return undefined;
  if (isList(s)) {
    const parts = t
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    return parts.length === 1 ? parts[0] : parts;
  }
  if (s.type === 'integer' || s.type === 'number') return numberOrText(t);
  return t;
}

function ChannelForm({ view, onDone }: { view: ChannelView; onDone: (said: Said) => void }) {
  const props = view.schema.properties;
  const required = new Set(view.schema.required ?? []);
  const start = (): Record<string, string | boolean> => {
    const f: Record<string, string | boolean> = {};
    for (const [k, s] of Object.entries(props)) {
      if (s['x-secret']) f[k] = '';
      else if (s.type === 'boolean') f[k] = Boolean(view.settings?.[k] ?? s.default ?? false);
      else f[k] = shown(s, view.settings?.[k] ?? s.default);
    }
    return f;
  };
  const [form, setForm] = useState(start);
  const [clear, setClear] = useState<Record<string, boolean>>({});
  const [said, setSaid] = useState<Said>(null);
  const editing = view.source === 'dashboard';

  const save = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(props)) {
      const v = form[k];
      if (s.type === 'boolean') body[k] = v === true;
      else if (s['x-secret']) {
        if (clear[k]) body[k] = null;
        else if (typeof v === 'string' && v.trim()) body[k] = parsed(s, v);
      } else {
        const p = parsed(s, String(v ?? ''));
        if (p !== undefined) body[k] = p;
      }
    }
    const a = await put<{ channel: ChannelView }>(controllerUrl(`alerts/channels/${view.name}`), body);
    if (!a.ok) return setSaid({ text: `not saved: ${a.error}`, bad: true });
    // The typed secrets leave the page with the form.
    setForm(start());
    onDone({ text: `${view.name}: saved`, bad: false });
  };

  const input = (k: string, s: FieldSchema) => {
    const set = (value: string | boolean) => setForm({ ...form, [k]: value });
    const name = `${view.name}-${k}`;
    if (s.type === 'boolean')
      return (
        <label class="toggle" key={k}>
          <input
            type="checkbox"
            name={name}
            checked={form[k] === true}
            onChange={(e) => set((e.target as HTMLInputElement).checked)}
          />
          {label(k, s)}
        </label>
      );
    const secret = s['x-secret'] === true;
    const state = view.secrets[k];
    const placeholder = secret && state?.set ? `set${state.host ? ` (${state.host})` : ''}: empty keeps it` : '';
    const common = {
      name,
      value: String(form[k] ?? ''),
      placeholder,
      autocomplete: secret ? 'off' : undefined,
      'aria-describedby': s.description ? `${name}-hint` : undefined,
    };
    return (
      <label key={k}>
        <span>
          {label(k, s)}
          {required.has(k) && !(secret && state?.set) ? ' *' : ''}
        </span>
        {isMap(s) ? (
          <textarea
            {...common}
            rows={2}
            placeholder={placeholder || 'Name: value, one a line'}
            onInput={(e) => set((e.target as HTMLTextAreaElement).value)}
          />
        ) : (
          <input
            {...common}
            type={secret && !s.pattern?.startsWith('^https?') ? 'password' : 'text'}
            inputMode={s.type === 'integer' || s.type === 'number' ? 'decimal' : undefined}
            onInput={(e) => set((e.target as HTMLInputElement).value)}
          />
        )}
        {s.description && (
          <span class="hint" id={`${name}-hint`}>
            {s.description}
          </span>
        )}
        {secret && state?.set && !required.has(k) && (
          <span class="toggle">
            <input
              type="checkbox"
              name={`${name}-clear`}
              checked={clear[k] === true}
              onChange={(e) => setClear({ ...clear, [k]: (e.target as HTMLInputElement).checked })}
            />
            remove it
          </span>
        )}
      </label>
    );
  };

  return (
    <form data-testid="channel-form" data-kind={view.name} onSubmit={(e) => void save(e)}>
      <h3>
        {editing ? 'Edit' : 'Set up'} {view.title}
      </h3>
      <div class="grid">{Object.entries(props).map(([k, s]) => input(k, s))}</div>
      <div class="buttons">
        <button type="submit">Save</button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
      {said && (
        <p class={`answer ${said.bad ? 'bad' : 'good'}`} role="status" data-testid="channel-form-answer">
          {said.text}
        </p>
      )}
    </form>
  );
}

function summary(c: ChannelView): string {
  const parts: string[] = [];
  for (const [k, s] of Object.entries(c.schema.properties)) {
    const secret = c.secrets[k];
    if (secret) {
      if (secret.set) parts.push(`${label(k, s)}: set${secret.host ? ` (${secret.host})` : ''}`);
    } else if (c.settings && c.settings[k] !== undefined) parts.push(`${label(k, s)}: ${shown(s, c.settings[k])}`);
  }
  return parts.join(' · ');
}

export function AlertChannels({ onChange }: { onChange: () => void }) {
  const [channels, setChannels] = useState<ChannelView[] | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [adding, setAdding] = useState('');
  const [said, setSaid] = useState<Said>(null);
  const load = async () => {
    const a: Answer<{ channels: ChannelView[] }> = await get(controllerUrl('alerts/channels'));
    if (a.ok) setChannels(a.body.channels);
    else setSaid({ text: a.error, bad: true });
  };
  useEffect(() => void load(), []);
  const done = (s: Said) => {
    setEditing(null);
    setAdding('');
    if (s) setSaid(s);
    void load();
    onChange();
  };
  const test = async (name: string) => {
    setSaid({ text: `${name}: testing…`, bad: false });
    const a = await post<{ channels: Array<{ channel: string; ok: boolean; answer: string }> }>(
      controllerUrl(`alerts/test?channel=${encodeURIComponent(name)}`),
    );
    const r = a.ok ? a.body.channels[0] : undefined;
    setSaid(
      r
        ? { text: `${name}: ${r.ok ? 'test delivered' : 'test NOT delivered'} (${r.answer})`, bad: !r.ok }
        : { text: `${name}: ${a.error}`, bad: true },
    );
    onChange();
  };
  const remove = async (name: string) => {
    if (!window.confirm(`Remove the ${name} channel? Messages waiting for it are dropped.`)) return;
    const a = await del(controllerUrl(`alerts/channels/${name}`));
    done(a.ok ? { text: `${name}: removed`, bad: false } : { text: `${name}: not removed: ${a.error}`, bad: true });
  };

  const inForce = channels?.filter((c) => c.source) ?? [];
  const free = channels?.filter((c) => !c.source) ?? [];
  const form = channels?.find((c) => c.name === (editing ?? adding));
  return (
    <section class="panel" data-testid="alert-channels">
      <h2>Channels</h2>
      {channels && !inForce.length && <p class="muted">No channel is set up: alerts show only on this page.</p>}
      <table class="hw">
        {inForce.map((c) => (
          <tr data-channel={c.name} key={c.name}>
            <td>
              <strong>{c.title}</strong>
              <div class="muted">
                {c.source === 'config' ? 'from the config file (change it there)' : 'set up on this page'}
                {c.overridden && '; a copy set up here is not used while the config file sets it'}
              </div>
              <div>{summary(c)}</div>
              {c.error && <div class="bad">{c.error}</div>}
            </td>
            <td>
              <div class="buttons" style={{ flexWrap: 'wrap' }}>
                <button type="button" onClick={() => void test(c.name)}>
                  Test
                </button>
                {c.source === 'dashboard' && (
                  <>
                    <button type="button" onClick={() => setEditing(c.name)}>
                      Edit
                    </button>
                    <button type="button" class="danger" style={{ marginTop: 0 }} onClick={() => void remove(c.name)}>
                      Remove
                    </button>
                  </>
                )}
              </div>
            </td>
          </tr>
        ))}
      </table>
      {!form && free.length > 0 && (
        <label class="field">
          Add a channel
          <select name="add-channel" value={adding} onChange={(e) => setAdding((e.target as HTMLSelectElement).value)}>
            <option value="">choose…</option>
            {free.map((c) => (
              <option value={c.name} key={c.name}>
                {c.title}
              </option>
            ))}
          </select>
        </label>
      )}
      {form && <ChannelForm key={form.name} view={form} onDone={done} />}
      {said && (
        <p class={`answer ${said.bad ? 'bad' : 'good'}`} role="status" data-testid="channel-answer">
          {said.text}
        </p>
      )}
    </section>
  );
}
