// The hardware section of GET system/status: buses, devices, error counters, as nested tables.
import { useEffect, useState } from 'preact/hooks';
import { get, controllerUrl } from './api';

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

export function Hardware() {
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
    const t = setInterval(load, 5000);
    return () => clearInterval(t);
  }, []);
  if (!status) return <p>{error || 'Reading the hardware status…'}</p>;
  const { hardware, ...service } = status;
  return (
    <div class="hardware">
      {error && <p class="answer bad">{error}</p>}
      <section class="panel">
        <h2>Hardware</h2>
        <Value v={hardware ?? 'no hardware section'} />
      </section>
      <section class="panel">
        <h2>Service</h2>
        <Value v={service} />
      </section>
    </div>
  );
}
