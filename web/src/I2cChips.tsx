// The I2C IO chips of the hardware status (hardware.i2c): one row per chip found by the probe
// or asked for by a block, with bus and address, the block that uses it, whether it answers,
// and its counters; chips a block expects but that do not answer are marked missing.
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
  failures?: number;
  verifyErrors?: number;
  resets?: number;
  writes?: number;
}

export interface I2cStatus {
  found?: Found[];
  devices?: Polled[];
  missing?: Array<{ bus: string; address: string }>;
  buses?: Array<{ name: string }>;
}

const COUNTERS = ['writes', 'failures', 'verifyErrors', 'resets'] as const;

export function I2cChips({ i2c, users }: { i2c: I2cStatus; users: Map<string, string> }) {
  const rows = new Map<string, { found?: Found; polled?: Polled }>();
  const key = (bus: string, address: string) => `${bus}-${address}`;
  for (const f of i2c.found ?? []) rows.set(key(f.bus, f.address), { found: f });
  for (const p of i2c.devices ?? []) rows.set(key(p.bus, p.address), { ...rows.get(key(p.bus, p.address)), polled: p });
  if (rows.size === 0) return <p class="muted">No IO chip on {(i2c.buses ?? []).length} I2C bus(es).</p>;
  return (
    <table class="hw" data-testid="i2c">
      <thead>
        <tr>
          <th>chip</th>
          <th>bus</th>
          <th>address</th>
          <th>state</th>
          {COUNTERS.map((c) => (
            <th>{c}</th>
          ))}
          <th>last error</th>
        </tr>
      </thead>
      <tbody>
        {[...rows].map(([k, { found, polled }]) => {
          const kind = (polled?.kind ?? found?.kind ?? 'unknown').toUpperCase();
          const user = users.get(k);
          const state = polled
            ? polled.connected
              ? 'answers'
              : 'missing'
            : found?.status === 'found'
              ? 'found, no block'
              : (found?.detail ?? found?.status ?? '—');
          return (
            <tr data-chip={k}>
              <td>
                {kind} {user && <span class="type">{user}</span>}
              </td>
              <td>{polled?.bus ?? found?.bus}</td>
              <td>{polled?.address ?? found?.address}</td>
              <td class={polled && !polled.connected ? 'bad' : ''}>{state}</td>
              {COUNTERS.map((c) => (
                <td class={c !== 'writes' && (polled?.[c] ?? 0) > 0 ? 'bad' : ''}>{polled?.[c] ?? '—'}</td>
              ))}
              <td class={polled?.lastError ? 'bad' : ''}>{polled?.lastError ?? '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
