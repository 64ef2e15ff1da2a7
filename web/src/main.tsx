import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AlertBanner } from './AlertBanner';
import { Controllers } from './Controllers';
import { loadServiceInfo, readOnly, serviceId, setRole } from './api';
import { prepainted, takePrepaint, takeEarly } from './early';
import { PAGES } from './pages';
import { lazy } from './lazy';
import { loadTypeDoc } from './use-type-doc';
import { sessionState } from './session';
import { startLive, useLive, type Connection } from './live';
import { Overview } from './Overview';
import './style.css';

const TYPE_DOC_WAIT_MS = 3000;

// Pages besides the overview load on demand, so the first view stays small.
const Graphs = lazy(() => import('./Graphs').then((m) => m.Graphs));
const Setup = lazy(() => import('./Setup').then((m) => m.Setup));
const Hardware = lazy(() => import('./Hardware').then((m) => m.Hardware));
const Alerts = lazy(() => import('./Alerts').then((m) => m.Alerts));
const Editor = lazy(() => import('./Editor').then((m) => m.Editor));
// Only with auth on.
const LogoutButton = lazy(() => import('./Login').then((m) => m.LogoutButton), null);

function useRoute(): string[] {
  const [hash, setHash] = useState(() => location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    // The hash may have changed between the first render and this effect (a link followed while
    // the page was still starting): that hashchange came before the listener.
    on();
    return () => removeEventListener('hashchange', on);
  }, []);
  return decodeURIComponent(hash.replace(/^#\/?/, '')).split('/');
}

const CONNECTION_WORDS: Record<Connection, string> = {
  online: 'online',
  reconnecting: 'reconnecting…',
  offline: 'offline',
  'logged-out': 'logged out',
};

const connectionWords = (live: ReturnType<typeof useLive>) =>
  live.connection === 'reconnecting' && !live.loaded ? 'connecting…' : CONNECTION_WORDS[live.connection];

function OfflineBanner() {
  const live = useLive();
  // Still connecting after the page opened: nothing was lost (the header says so).
  if (live.connection === 'online' || (live.connection === 'reconnecting' && !live.loaded)) return null;
  const since = live.offlineSince ? ` since ${new Date(live.offlineSince).toLocaleTimeString()}` : '';
  if (live.connection === 'logged-out')
    return (
      <div class="banner offline" role="alert" data-testid="logged-out">
        Logged out{since}: the session ended (logged out elsewhere or expired). Values below are the last known ones.{' '}
        <button type="button" onClick={() => location.reload()}>
          Log in again
        </button>
      </div>
    );
  if (live.connection === 'reconnecting')
    return (
      <div class="banner reconnecting" role="status" data-testid="reconnecting">
        Connection lost{since}; the service answers, reconnecting…
      </div>
    );
  return (
    <div class="banner offline" role="alert" data-testid="offline">
      Service offline{since}: it does not answer. Values below are the last known ones. Retrying every few seconds…
    </div>
  );
}

/** The page does not need MQTT (it reads the event stream), but history and other clients do. */
function BrokerBanner() {
  const live = useLive();
  const mqtt = live.status.mqtt as { connected?: boolean; url?: string; lastError?: string | null } | undefined;
  if (!live.online || !mqtt || mqtt.connected !== false) return null;
  return (
    <div class="banner broker" role="alert" data-testid="broker-down">
      MQTT broker unreachable{mqtt.url ? ` (${mqtt.url})` : ''}
      {mqtt.lastError ? `: ${mqtt.lastError}` : ''}. This page stays live; history and other MQTT clients get no updates
      until it is back.
    </div>
  );
}

/** A full disk refuses changes (507); the page says so, and that reads and control go on. */
function StorageBanner() {
  const live = useLive();
  const storage = live.status.storage as { full?: boolean; since?: string | null } | undefined;
  if (!live.online || !storage?.full) return null;
  const since = storage.since ? ` since ${new Date(storage.since).toLocaleTimeString()}` : '';
  return (
    <div class="banner storage" role="alert" data-testid="disk-full">
      Disk full{since}: changes cannot be stored and are refused. Values and control go on. Free some space on the
      controller's data disk.
    </div>
  );
}

interface ClockStatus {
  lastJump?: { at: string; text: string; secondsAgo: number } | null;
  behind?: { lastSeen: string; byMs: number } | null;
}

/** A wall-clock jump (NTP on a Pi without a real-time clock) is shown for an hour; control never acts on it. */
function ClockBanner() {
  const live = useLive();
  const clock = live.status.clock as ClockStatus | undefined;
  if (!live.online || !clock) return null;
  if (clock.behind)
    return (
      <div class="banner clock" role="status" data-testid="clock-behind">
        The controller's clock is behind the last time it saw ({new Date(clock.behind.lastSeen).toLocaleString()}):
        waiting for network time. Control runs on; history is held until the clock is right.
      </div>
    );
  const jump = clock.lastJump;
  if (!jump || jump.secondsAgo > 3600) return null;
  return (
    <div class="banner clock" role="status" data-testid="clock-jump">
      The controller's clock {jump.text} at {new Date(jump.at).toLocaleString()} (network time). Control, timers and
      profiles kept their time.
    </div>
  );
}

/** `user`: who is logged in, when auth is on (then the header has a logout button). */
function App(props: { user: string | null }) {
  const [page, ...rest] = useRoute();
  const current = PAGES.some(([p]) => p === page) ? page : 'overview';
  const live = useLive();
  return (
    <>
      <header>
        <strong class="brand">edgeblocks</strong>
        <span class="service">{serviceId()}</span>
        <span
          class={`dot ${live.connection}`}
          data-testid="online"
          data-connection={live.connection}
          role="status"
          aria-label={`connection: ${connectionWords(live)}`}
        >
          {connectionWords(live)}
        </span>
        <Controllers />
        <nav aria-label="pages">
          {PAGES.map(([p, title]) => (
            <a href={`#/${p}`} class={p === current ? 'active' : ''} aria-current={p === current ? 'page' : undefined}>
              {title}
            </a>
          ))}
        </nav>
        {props.user !== null && <LogoutButton user={props.user} />}
      </header>
      {readOnly() && (
        <div class="banner viewer" role="note" data-testid="read-only">
          Read only: {props.user} is a viewer. Everything can be looked at; nothing can be changed.
        </div>
      )}
      <OfflineBanner />
      <BrokerBanner />
      <StorageBanner />
      <ClockBanner />
      <AlertBanner />
      <main>
        {current === 'overview' && <Overview />}
        {current === 'graphs' && <Graphs />}
        {current === 'setup' && <Setup />}
        {current === 'hardware' && <Hardware />}
        {current === 'alerts' && <Alerts />}
        {current === 'block' && <Editor id={rest.join('/')} />}
      </main>
    </>
  );
}

async function boot(): Promise<void> {
  // When the page's code began (after the prepaint's first paint: src/api/dashboard.ts).
  performance.mark('edgeblocks-boot');
  const root = document.getElementById('app')!;
  for (;;) {
    try {
      await loadServiceInfo();
      break;
    } catch (e) {
      root.innerHTML = '';
      const p = document.createElement('p');
      p.className = 'banner offline';
      p.textContent = `Service offline: ${(e as Error).message}. Retrying…`;
      root.appendChild(p);
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
  // The prepaint (the overview the service put into index.html) stays until the app renders over it.
  if (!prepainted) root.innerHTML = '';
  let session = await sessionState();
  if (session.loginNeeded) {
    const { Login } = await import('./Login');
    await new Promise<void>((done) => render(<Login onDone={done} />, root));
    session = await sessionState();
    render(null, root);
  }
  setRole(session.role);
  // The event stream index.html opened, when the session was good from the start, after the
  // state the prepaint showed.
  startLive((await takeEarly('events')?.catch(() => null)) ?? undefined, takePrepaint());
  // The overview groups blocks by the API document: read first, the first render shows the
  // cards (no frame and effect in between on a slow phone). A service that does not answer it
  // in time gets the page anyway, which shows what it can.
  await Promise.race([loadTypeDoc().catch(() => undefined), new Promise((r) => setTimeout(r, TYPE_DOC_WAIT_MS))]);
  render(<App user={session.user} />, root);
}

void boot();
