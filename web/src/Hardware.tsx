// The hardware section of GET system/status as a brewer reads it: one table per 1-Wire bus with
// its devices (and the blocks that use them) and error counters, the GPIO lines, devices that
// blocks expect but no bus answers for; the rest of the status as nested tables below.
import { useEffect, useState } from 'preact/hooks';
import { get, controllerUrl } from './api';
import { I2cChips, type I2cStatus } from './I2cChips';
import { useLive } from './live';

interface Bus {
  name: string;
  kind?: string;
  addresses?: string[];
  lastError?: string | null;
  [counter: string]: unknown;
}

interface GpioLine {
  name: string;
  line?: number;
  direction?: string;
  active?: boolean | null;
  errors?: number;
  lastError?: string | null;
}

/** Counters are the numeric fields of a bus whose names say they count errors or retries. */
const isCounter = (k: string, v: unknown) => typeof v === 'number' && /errors?$|retries$/i.test(k);

function Value({ v }: { v: unknown }) {
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x !== 'object' || x === null)) return <span>{v.length ? v.join(', ') : '—'}</span>;
    return (
      <div class="hw-list">
        {v.map((x) => (
          <Value v={x} />
        ))}
      </div>
    );
  }
  if (v && typeof v === 'object')
    return (
      <table class="kv">
        {Object.entries(v as Record<string, unknown>).map(([k, x]) => (
          <tr class={/error/i.test(k) && typeof x === 'number' && x > 0 ? 'bad' : ''}>
            <th>{k}</th>
            <td>
              <Value v={x} />
            </td>
          </tr>
        ))}
      </table>
    );
  return <span>{v === null || v === undefined ? '—' : String(v)}</span>;
}

function Buses({ buses, users }: { buses: Bus[]; users: Map<string, string> }) {
  const counters = [...new Set(buses.flatMap((b) => Object.keys(b).filter((k) => isCounter(k, b[k]))))];
  return (
    <table class="hw" data-testid="buses">
      <thead>
        <tr>
          <th>bus</th>
          <th>devices</th>
          {counters.map((c) => (
            <th>{c}</th>
          ))}
          <th>last error</th>
        </tr>
      </thead>
      <tbody>
        {buses.map((b) => (
          <tr data-bus={b.name}>
            <td>
              {b.name}
              {b.kind && <span class="type"> {b.kind}</span>}
            </td>
            <td>
              {(b.addresses ?? []).length === 0 && <span class="muted">none</span>}
              {(b.addresses ?? []).map((a) => (
                <div data-address={a}>
                  <code>{a}</code>{' '}
                  {users.has(a) ? (
                    <a href={`#/block/${encodeURIComponent(users.get(a)!)}`}>{users.get(a)}</a>
                  ) : (
                    <span class="muted">no block</span>
                  )}
                </div>
              ))}
            </td>
            {counters.map((c) => (
              <td class={(b[c] as number) > 0 ? 'bad' : ''} data-counter={c}>
                {typeof b[c] === 'number' ? String(b[c]) : '—'}
              </td>
            ))}
            <td class={b.lastError ? 'bad' : ''}>{b.lastError ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Gpio({ lines }: { lines: GpioLine[] }) {
  return (
    <table class="hw" data-testid="gpio">
      <thead>
        <tr>
          <th>line</th>
          <th>direction</th>
          <th>active</th>
          <th>errors</th>
          <th>last error</th>
        </tr>
      </thead>
      <tbody>
        {lines.map((l) => (
          <tr>
            <td>
              {l.name} <span class="type">GPIO {l.line}</span>
            </td>
            <td>{l.direction ?? '—'}</td>
            <td>{l.active === true ? 'yes' : l.active === false ? 'no' : '—'}</td>
            <td class={(l.errors ?? 0) > 0 ? 'bad' : ''}>{l.errors ?? '—'}</td>
            <td class={l.lastError ? 'bad' : ''}>{l.lastError ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Hardware() {
  const live = useLive();
  const [status, setStatus] = useState<Record<string, unknown> | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    const load = () =>
      void get<Record<string, unknown>>(controllerUrl('system/status')).then((a) => {
        if (!a.ok) return setError(a.error);
        setError('');
        setStatus(a.body);
      });
    load();
    const t = setInterval(load, 3000);
    return () => clearInterval(t);
  }, []);
  if (!status) return <p>{error || 'Reading the hardware status…'}</p>;
  const { hardware, ...service } = status;
  const hw = (hardware ?? {}) as {
    mode?: string;
    onewire?: { buses?: Bus[]; missing?: string[] };
    gpio?: GpioLine[];
    i2c?: I2cStatus;
    [k: string]: unknown;
  };
  const { mode, onewire, gpio, i2c, ...rest } = hw;
  // Which block uses a 1-Wire address, so a brewer can tell the sensors apart.
  const users = new Map<string, string>();
  for (const b of live.blocks.values()) if (typeof b.data?.address === 'string') users.set(b.data.address, b.id);
  // I2C chips by bus and address, as the I2C table keys them.
  for (const b of live.blocks.values()) {
    if (typeof b.data?.address === 'number' && typeof b.data?.bus === 'string')
      users.set(`${b.data.bus}-0x${b.data.address.toString(16).padStart(2, '0')}`, b.id);
  }
  const missing = onewire?.missing ?? [];
  return (
    <div class="hardware">
      {error && <p class="answer bad">{error}</p>}
      <section class="panel" tabIndex={0} aria-label="1-Wire buses">
        <h2>1-Wire buses{mode ? ` (${mode})` : ''}</h2>
        {missing.length > 0 && (
          <p class="answer bad" data-testid="missing">
            Not found on any bus: {missing.map((a) => `${a}${users.has(a) ? ` (${users.get(a)})` : ''}`).join(', ')}
          </p>
        )}
        {onewire?.buses?.length ? <Buses buses={onewire.buses} users={users} /> : <p class="muted">No 1-Wire bus.</p>}
      </section>
      {gpio && gpio.length > 0 && (
        <section class="panel" tabIndex={0} aria-label="GPIO lines">
          <h2>GPIO</h2>
          <Gpio lines={gpio} />
        </section>
      )}
      {i2c && (
        <section class="panel" tabIndex={0} aria-label="I2C chips">
          <h2>I2C chips</h2>
          <I2cChips i2c={i2c} users={users} />
        </section>
      )}
      {Object.keys(rest).length > 0 && (
        <section class="panel" tabIndex={0} aria-label="Other hardware">
          <h2>Other hardware</h2>
          <Value v={rest} />
        </section>
      )}
      <details class="panel">
        <summary>Service status (every field)</summary>
        <Value v={service} />
      </details>
    </div>
  );
}
