// The I2C chips of the hardware status (hardware.i2c): one row per chip found by the probe or
// asked for by a block, with bus and address (as the datasheet writes it), the block that uses
// it, whether it answers, its errors in words with what to do, and its last error explained;
// chips a block expects but that do not answer are marked missing. Then each bus's traffic.
import { errorWords } from './hardware-words';
import { Counters } from './Counters';

interface Found {
  bus: string;
  address: string;
  kind: string | null;
  status: string;
  detail?: string;
}

interface Polled {
  bus: string;
  address: string;
  kind: string;
  connected: boolean;
  lastError: string | null;
  [counter: string]: unknown;
}

export interface I2cBus {
  name: string;
  [counter: string]: unknown;
}

export interface I2cStatus {
  found?: Found[];
  devices?: Polled[];
  missing?: Array<{ bus: string; address: string }>;
  buses?: I2cBus[];
}

const COUNTERS = ['failures', 'errors', 'crcErrors', 'verifyErrors', 'resets', 'writes'];

export function I2cChips({ i2c, users }: { i2c: I2cStatus; users: Map<string, string> }) {
  const rows = new Map<string, { found?: Found; polled?: Polled }>();
  const key = (bus: string, address: string) => `${bus}-${address}`;
  for (const f of i2c.found ?? []) rows.set(key(f.bus, f.address), { found: f });
  for (const p of i2c.devices ?? []) rows.set(key(p.bus, p.address), { ...rows.get(key(p.bus, p.address)), polled: p });
  if (rows.size === 0) return <p class="muted">No I2C chip on {(i2c.buses ?? []).length} I2C bus(es).</p>;
  return (
    <table class="hw" data-testid="i2c">
      <thead>
        <tr>
          <th>Chip</th>
          <th>Bus</th>
          <th>Address</th>
          <th>State</th>
          <th>Errors</th>
          <th>Last error</th>
        </tr>
      </thead>
      <tbody>
        {[...rows].map(([k, { found, polled }]) => {
          const kind = (polled?.kind ?? found?.kind ?? 'unknown').toUpperCase();
          const user = users.get(k);
          const state = polled
            ? polled.connected
              ? 'answers'
              : 'missing: does not answer'
            : found?.status === 'found'
              ? 'found, no block'
              : (found?.detail ?? found?.status ?? '—');
          return (
            <tr data-chip={k}>
              <td data-label="Chip">
                {kind}{' '}
                {user ? (
                  <a class="type" href={`#/block/${encodeURIComponent(user)}`}>
                    {user}
                  </a>
                ) : null}
              </td>
              <td data-label="Bus">{polled?.bus ?? found?.bus}</td>
              <td data-label="Address">
                <code>{polled?.address ?? found?.address}</code>
              </td>
              <td data-label="State" class={polled && !polled.connected ? 'bad' : ''}>
                {state}
              </td>
              <td data-label="Errors">{polled ? <Counters of={polled} names={COUNTERS} /> : '—'}</td>
              <td data-label="Last error" class={polled?.lastError ? 'bad' : ''}>
                {errorWords(polled?.lastError) || '—'}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function I2cBuses({ buses }: { buses: I2cBus[] }) {
  return (
    <table class="hw" data-testid="i2c-buses">
      <thead>
        <tr>
          <th>I2C bus</th>
          <th>Traffic</th>
          <th>Busy</th>
        </tr>
      </thead>
      <tbody>
        {buses.map((b) => (
          <tr data-i2c-bus={b.name}>
            <td data-label="I2C bus">{b.name}</td>
            <td data-label="Traffic">
              {/* Discovery's probes of empty addresses fail too: a count here, not an alarm. */}
              {typeof b.transactions === 'number' ? `${b.transactions} transfers` : '—'}
              {typeof b.failures === 'number' ? `, ${b.failures} not answered` : ''}
              {typeof b.dropped === 'number' && b.dropped > 0 ? (
                <span class="bad">, {b.dropped} refused: too many were waiting (a chip may hold the bus)</span>
              ) : null}
            </td>
            <td data-label="Busy">
              {typeof b.busyMs === 'number' ? `${Math.round(b.busyMs)} ms` : '—'}
              {typeof b.waiting === 'number' && b.waiting > 0 ? `, ${b.waiting} waiting` : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
