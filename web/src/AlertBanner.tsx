// The banner on every page while an alert is active, from the status in the event stream (no
// extra request): what, which block, for how long, in words.
import { fmtDuration } from './blocks';
import { controllerNow, useLive } from './live';

export interface ActiveSummary {
  key: string;
  kind: string;
  title: string;
  blockId: string | null;
  text: string;
  since: string;
  count: number;
  acknowledged: boolean;
  /** Stopped meanwhile for a time the controller's clock did not show: active for at least this long. */
  stopUnknown?: boolean;
}

export function activeAlerts(status: Record<string, unknown>): ActiveSummary[] {
  const list = (status.alerts as { list?: unknown } | undefined)?.list;
  return Array.isArray(list) ? (list as ActiveSummary[]) : [];
}

export const activeFor = (a: ActiveSummary): string =>
  `${a.stopUnknown ? 'at least ' : ''}${fmtDuration(Math.max(0, (controllerNow() - Date.parse(a.since)) / 1000))}`;

export function AlertBanner() {
  const live = useLive();
  const active = activeAlerts(live.status);
  if (!active.length) return null;
  return (
    <div class="banner alert" role="alert" data-testid="alert-banner">
      {active.map((a) => (
        <p data-alert={a.key}>
          <strong>Alert: {a.title}</strong>
          {a.blockId ? ` — ${a.blockId}` : ''}, for {activeFor(a)}
          {a.acknowledged ? ' (acknowledged)' : ''}: <span class="text">{a.text}</span>
        </p>
      ))}
      <a href="#/alerts">Show alerts</a>
    </div>
  );
}
