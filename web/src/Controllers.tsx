// The other controllers on the broker (GET /{id}/fleet, from their state messages): a small list
// in the header with online/offline and a link to each one's dashboard. Hidden while there are none.
import { useEffect, useState } from 'preact/hooks';
import { controllerUrl, get } from './api';

export interface Peer {
  serviceId: string;
  online: boolean;
  lastSeen: string;
  dashboardUrl: string | null;
}

const REFRESH_MS = 10_000;
const FIRST_MS = 1500;

export function Controllers() {
  const [peers, setPeers] = useState<Peer[]>([]);
  useEffect(() => {
    let stopped = false;
    const load = () =>
      void get<{ controllers: Peer[] }>(controllerUrl('fleet')).then((a) => {
        if (!stopped && a.ok && a.body) setPeers(a.body.controllers);
      });
    // The list waits until the overview has shown: it is not what a brewer opens the page for.
    const first = setTimeout(load, FIRST_MS);
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
    };
  }, []);
  if (!peers.length) return null;
  const online = peers.filter((p) => p.online).length;
  return (
    <details class="controllers" data-testid="controllers">
      <summary>
        Controllers ({online}/{peers.length} online)
      </summary>
      <ul>
        {peers.map((p) => (
          <li data-controller={p.serviceId}>
            <span class={`dot ${p.online ? 'on' : 'off'}`}>{p.online ? 'online' : 'offline'}</span>{' '}
            {p.dashboardUrl ? <a href={p.dashboardUrl}>{p.serviceId}</a> : p.serviceId}
          </li>
        ))}
      </ul>
    </details>
  );
}
