// The hardware section of GET system/status as a brewer reads it: one table per kind of bus
// with its devices (named by the blocks that use them), its errors in words with what to do,
// and its last error explained; the GPIO lines; the I2C chips; the simulated plant in °C;
// devices that blocks expect but no bus answers for. Every field of the status is below, folded.
import { useEffect, useState } from 'preact/hooks';
import { controllerUrl, get } from './api';
import { Counters } from './Counters';
import { errorWords, isErrorCounter, missingLines, oneWireName, plantRows } from './hardware-words';
import { I2cBuses, I2cChips, type I2cStatus } from './I2cChips';
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

/** A driver's error in words, with 1-Wire addresses named as the kernel does and by the block that uses them. */
function explained(text: string | null | undefined, users: Map<string, string>): string {
  return errorWords(text).replace(
    /\b[0-9a-f]{16}\b/g,
    (a) => `${oneWireName(a)}${users.has(a) ? ` (${users.get(a)})` : ''}`,
  );
}

const quiet = (b: Bus) =>
  !(b.addresses ?? []).length &&
  !b.lastError &&
  !Object.entries(b).some(([k, v]) => isErrorCounter(k, v) && (v as number) > 0);

function Buses({ buses: all, users }: { buses: Bus[]; users: Map<string, string> }) {
  // Buses with nothing on them and nothing wrong fold into one line.
  const buses = all.filter((b) => !quiet(b));
  const empty = all.filter(quiet);
  const counters = [...new Set(buses.flatMap((b) => Object.keys(b).filter((k) => typeof b[k] === 'number')))];
  return (
    <table class="hw" data-testid="buses">
      <thead>
        <tr>
          <th>Bus</th>
          <th>Devices</th>
          <th>Errors</th>
          <th>Last error</th>
        </tr>
      </thead>
      <tbody>
        {buses.map((b) => (
          <tr data-bus={b.name}>
            <td data-label="1-Wire bus">
              {b.name}
              {b.kind && <span class="type"> {b.kind.toUpperCase()}</span>}
            </td>
            <td data-label="Devices">
              {(b.addresses ?? []).length === 0 && <span class="muted">none</span>}
              {(b.addresses ?? []).map((a) => (
                <div data-address={a}>
                  <code title={a}>{oneWireName(a)}</code>{' '}
                  {users.has(a) ? (
                    <a href={`#/block/${encodeURIComponent(users.get(a)!)}`}>{users.get(a)}</a>
                  ) : (
                    <span class="muted">no block</span>
                  )}
                </div>
              ))}
            </td>
            <td data-label="Errors">
              <Counters of={b} names={counters.filter((c) => isErrorCounter(c, b[c]) || c === 'searches')} />
            </td>
            <td data-label="Last error" class={b.lastError ? 'bad' : ''} data-testid="last-error">
              {explained(b.lastError, users) || '—'}
            </td>
          </tr>
        ))}
        {empty.length > 0 && (
          <tr data-testid="empty-buses">
            <td colSpan={4} class="muted">
              Nothing connected, no errors: {empty.map((b) => b.name).join(', ')}
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

function Gpio({ lines }: { lines: GpioLine[] }) {
  return (
    <table class="hw" data-testid="gpio">
      <thead>
        <tr>
          <th>Line</th>
          <th>Direction</th>
          <th>Active</th>
          <th>Errors</th>
          <th>Last error</th>
        </tr>
      </thead>
      <tbody>
        {lines.map((l) => (
          <tr>
            <td data-label="Line">
              {l.name} <span class="type">GPIO {l.line}</span>
            </td>
            <td data-label="Direction">
              {l.direction === 'out' ? 'output' : l.direction === 'in' ? 'input' : (l.direction ?? '—')}
            </td>
            <td data-label="Active">{l.active === true ? 'yes' : l.active === false ? 'no' : '—'}</td>
            <td data-label="Errors" class={(l.errors ?? 0) > 0 ? 'bad' : ''}>
              {l.errors ?? '—'}
            </td>
            <td data-label="Last error" class={l.lastError ? 'bad' : ''}>
              {errorWords(l.lastError) || '—'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The emulated hardware: its plant in words, anything else as it comes. */
function Sim({ sim }: { sim: { plant?: Record<string, unknown>; devices?: unknown; [k: string]: unknown } }) {
  const { plant, devices, ...rest } = sim;
  return (
    <>
      {typeof devices === 'number' && <p class="muted">{devices} emulated 1-Wire devices.</p>}
      {plant && (
        <table class="kv" data-testid="plant">
          {plantRows(plant).map(([k, v]) => (
            <tr>
              <th>{k}</th>
              <td>{v}</td>
            </tr>
          ))}
        </table>
      )}
      {Object.keys(rest).length > 0 && <Value v={rest} />}
    </>
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
    onewire?: { buses?: Bus[]; missing?: string[]; garbled?: string[] };
    gpio?: GpioLine[];
    i2c?: I2cStatus;
    sim?: { plant?: Record<string, unknown> };
    [k: string]: unknown;
  };
  const { mode, onewire, gpio, i2c, sim, ...rest } = hw;
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
        <h2>1-Wire buses{mode === 'sim' ? ' (emulated)' : ''}</h2>
        {missingLines(
          missing,
          onewire?.garbled,
          (a) => `${oneWireName(a)}${users.has(a) ? ` (${users.get(a)})` : ''}`,
        ).map((line) => (
          <p class="answer bad" data-testid="missing" key={line}>
            {line}
          </p>
        ))}
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
          {(i2c.buses ?? []).length > 0 && <I2cBuses buses={i2c.buses!} />}
        </section>
      )}
      {sim && (
        <section class="panel" tabIndex={0} aria-label="Emulated hardware">
          <h2>Emulated plant</h2>
          <Sim sim={sim} />
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
