// Live state from the service's event stream (GET /{serviceId}/events): a full `state` on
// connect and every emit interval, `patch` events after changes. EventSource reconnects by
// itself; a watchdog also marks the service offline when nothing arrived for three intervals
// (a hung service or a proxy that keeps the socket open) and opens a fresh stream.
// Connection state in four words: online (the stream delivers), reconnecting (the stream
// dropped and the service still answers, or we do not know yet), offline (the service does not
// answer) and logged-out (it answers 401: the session ended). A probe (GET settings/enabled, tiny
// and behind the login) tells them apart, within PROBE_TIMEOUT_MS of a silent stream.
import { useEffect, useState } from 'preact/hooks';
import { controllerUrl, emitIntervalMs, LOGGED_OUT_EVENT, type Block } from './api';
import type { EarlyStream } from './early';
import { isWallSet } from '../../src/shared/wall-set.js';

export type Connection = 'online' | 'reconnecting' | 'offline' | 'logged-out';

export interface LiveState {
  online: boolean;
  connection: Connection;
  /** Set once the first state arrived. */
  loaded: boolean;
  blocks: Map<string, Block>;
  status: Record<string, unknown>;
  /** Ids deleted (elsewhere or here) since the page opened, so open views can say so. */
  deleted: Set<string>;
  /** Ids renamed (elsewhere or here) since the page opened → the block's id now, so open views can follow. */
  renamed: Map<string, string>;
  /**
   * The block set's id, from the stream: another after a backup load or on another data dir (a
   * reinstall, another controller), where a nid may name another block. Undefined until the first state.
   */
  blockSet: string | undefined;
  offlineSince: number | null;
  version: number;
}

const state: LiveState = {
  online: false,
  connection: 'reconnecting',
  loaded: false,
  blocks: new Map(),
  status: {},
  deleted: new Set(),
  renamed: new Map(),
  blockSet: undefined,
  offlineSince: Date.now(),
  version: 0,
};
const listeners = new Set<() => void>();
let source: EventSource | null = null;
let lastMessage = 0;
/** The controller's wall clock minus this browser's, from the last state's `clock.now`. */
let controllerClockOffsetMs = 0;
/** The last state said the controller's wall clock is not set (a Pi before network time, at 1970). */
let controllerClockUnset = false;

/**
 * False while the controller's wall clock is not set. A place in a profile written then (Resume,
 * Skip) would be a date on the browser's clock, which the controller, holding the place of the
 * last time it saw, cannot line up with: the card waits for the clock instead.
 */
export const controllerClockKnown = (): boolean => !controllerClockUnset;

/**
 * The controller's wall clock now, epoch ms. Times the controller keeps (a profile's `start`,
 * history points, alert times) are on its clock, which may differ from this browser's by hours
 * (a Pi without a real-time clock, before network time or with none): they are written and read
 * against this, never against Date.now().
 */
export function controllerNow(): number {
  return Date.now() + controllerClockOffsetMs;
}

function notify(): void {
  state.version++;
  for (const l of listeners) l();
}

/** A stream silent this long (with the service's emit interval shorter) is checked by a probe. */
const SILENCE_MS = 2500;
const PROBE_TIMEOUT_MS = 1500;
const CHECK_MS = 5_000;

function setConnection(connection: Connection): void {
  if (state.connection === connection || state.connection === 'logged-out') return;
  const online = connection === 'online';
  if (state.online !== online) state.offlineSince = online ? null : Date.now();
  state.online = online;
  state.connection = connection;
  notify();
}

let probing = false;
let lastProbe = 0;
const streamFresh = () =>
  source?.readyState === EventSource.OPEN && Date.now() - lastMessage < 3 * emitIntervalMs() + 2000;

/** Asks the service whether it is there and who we are to it. */
async function probe(): Promise<void> {
  if (probing || Date.now() - lastProbe < 1000) return;
  probing = true;
  lastProbe = Date.now();
  try {
    const res = await fetch(controllerUrl('settings/enabled'), {
      cache: 'no-store',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (res.status === 401) setConnection('logged-out');
    else setConnection(streamFresh() ? 'online' : 'reconnecting');
  } catch {
    setConnection('offline');
  } finally {
    probing = false;
  }
}

/**
 * Blocks gone from `before` that are in `after` under another id (a rename keeps the nid) are
 * renamed, the others deleted; a block that is there again is neither. Across block sets (a
 * backup load: the backup's nids) a nid names another block, and every block gone is deleted.
 */
function track(before: Map<string, Block>, after: Map<string, Block>, gone: Iterable<string>, sameSet = true): void {
  const byNid = new Map<number, string>();
  if (sameSet) for (const b of after.values()) if (typeof b.nid === 'number') byNid.set(b.nid, b.id);
  for (const id of gone) {
    if (after.has(id)) continue;
    const nid = before.get(id)?.nid;
    const to = typeof nid === 'number' ? byNid.get(nid) : undefined;
    if (to !== undefined && to !== id && !before.has(to)) {
      state.renamed.set(id, to);
      // An older name of the block follows it too.
      for (const [from, now] of state.renamed) if (now === id) state.renamed.set(from, to);
    } else state.deleted.add(id);
  }
  for (const id of after.keys()) {
    state.deleted.delete(id);
    state.renamed.delete(id);
  }
}

function replaceBlocks(blocks: Block[], sameSet = true): void {
  const next = new Map(blocks.map((b) => [b.id, b]));
  track(state.blocks, next, state.blocks.keys(), sameSet);
  state.blocks = next;
}

/** Takes the stream's block set id; false when it is another than the one before. */
function takeBlockSet(set: unknown): boolean {
  if (typeof set !== 'string') return true;
  const same = state.blockSet === undefined || state.blockSet === set;
  state.blockSet = set;
  return same;
}

/**
 * Every block at once (after a backup load, `loaded`, or a unit change), without waiting for the
 * next state. After a load no block gone was renamed: the backup's blocks have the backup's nids.
 */
export function applyAll(blocks: Block[], units?: { temperature: string }, loaded = false): void {
  replaceBlocks(blocks, !loaded);
  // The status' units come with the next state event; a unit change here is known now (the
  // editor labels new quantity fields by it).
  if (units) state.status = { ...state.status, units: { ...(state.status.units as object | undefined), ...units } };
  notify();
}

type StateMessage = { status: Record<string, unknown>; blocks: Block[]; blockSet?: string };
type PatchMessage = { changed: Block[]; deleted: string[]; blockSet?: string };

const onState = (ev: MessageEvent<string>) => applyState(JSON.parse(ev.data) as StateMessage);
const onPatch = (ev: MessageEvent<string>) => applyPatchMessage(JSON.parse(ev.data) as PatchMessage);

function applyState(msg: StateMessage): void {
  lastMessage = Date.now();
  replaceBlocks(msg.blocks, takeBlockSet(msg.blockSet));
  state.status = msg.status;
  const clockNow = Date.parse(String((msg.status.clock as { now?: unknown } | undefined)?.now));
  // A controller clock never set (1970) tells nothing: the browser's is the better guess then (a
  // profile waits for the clock, and a date written now keeps it once the clock is set).
  if (Number.isFinite(clockNow)) {
    controllerClockUnset = !isWallSet(clockNow);
    controllerClockOffsetMs = controllerClockUnset ? 0 : clockNow - lastMessage;
  }
  state.loaded = true;
  // Logged out stays so until the page starts over (the login form): a stream the service keeps
  // open after the session ended must not make the page look logged in.
  if (state.connection !== 'logged-out') {
    const online = msg.status.online !== false;
    if (online) state.offlineSince = null;
    state.online = online;
    state.connection = online ? 'online' : 'offline';
  }
  notify();
}

function applyPatchMessage(msg: PatchMessage): void {
  lastMessage = Date.now();
  applyPatch(msg.changed, msg.deleted, takeBlockSet(msg.blockSet));
}

/** Also used after our own REST calls, so the page shows the answer before the next event. */
export function applyPatch(changed: Block[], deleted: string[] = [], sameSet = true): void {
  const next = new Map(state.blocks);
  for (const b of changed) next.set(b.id, b);
  for (const id of deleted) next.delete(id);
  track(state.blocks, next, deleted, sameSet);
  state.blocks = next;
  notify();
}

/** Opens the event stream, or takes over the one index.html opened (with what it received so far). */
function open(early?: EarlyStream): void {
  source?.close();
  const es = early && early.readyState !== EventSource.CLOSED ? early : new EventSource(controllerUrl('events'));
  source = es;
  es.addEventListener('state', onState as EventListener);
  es.addEventListener('patch', onPatch as EventListener);
  if (es === early) {
    for (const m of early.early ?? [])
      if (m.type === 'state') applyState(m.json as StateMessage);
      else applyPatchMessage(m.json as PatchMessage);
    // Its own listeners only kept messages until now; what comes next goes to the ones above.
    early.early = undefined;
    if (es.readyState === EventSource.OPEN) lastMessage = Date.now();
  }
  es.onopen = () => (lastMessage = Date.now());
  es.onerror = () => {
    setConnection(state.connection === 'online' ? 'reconnecting' : state.connection);
    void probe();
    // CLOSED means the browser gave up (e.g. a 502 from a proxy): start over ourselves.
    if (es.readyState === EventSource.CLOSED && source === es) setTimeout(() => source === es && open(), 3000);
  };
}

/** `first`: the state message index.html came with (the prepaint's), shown until the stream's. */
export function startLive(early?: EarlyStream, first?: unknown): void {
  window.addEventListener(LOGGED_OUT_EVENT, () => setConnection('logged-out'));
  // The service sent it with the page a moment ago: online until the watchdog learns otherwise.
  if (first && typeof first === 'object' && Array.isArray((first as StateMessage).blocks))
    applyState(first as StateMessage);
  open(early);
  setInterval(() => {
    const silent = Date.now() - lastMessage;
    // Between state events (every emit interval) silence is normal; past SILENCE_MS the probe
    // says whether the service is still there, so a stopped one is noticed within a few seconds.
    // Every CHECK_MS anyway: an open stream does not say that the session ended elsewhere.
    if (
      silent > Math.min(SILENCE_MS, emitIntervalMs() + 500) ||
      state.connection !== 'online' ||
      Date.now() - lastProbe > CHECK_MS
    )
      void probe();
    if (silent > 3 * emitIntervalMs() + 2000 && source?.readyState !== EventSource.CONNECTING) {
      if (state.connection === 'online') setConnection('reconnecting');
      open();
    }
  }, 500);
}

export function live(): LiveState {
  return state;
}

/** Re-renders the component whenever live state changes. */
export function useLive(): LiveState {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const l = () => setVersion(state.version);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return state;
}

/**
 * Every block's nid, type and id, and the block set: changes when a block is created, renamed or
 * deleted or a backup is loaded, not with the blocks' values.
 */
const blockNames = () =>
  `${state.blockSet}\u0002${[...state.blocks.values()].map((b) => `${b.nid}\u0000${b.type}\u0000${b.id}`).join('\u0001')}`;

/** Re-renders only when a block is created, renamed or deleted or a backup loaded; the value says which blocks there are. */
export function useBlockNames(): string {
  const [now, setNow] = useState(blockNames);
  useEffect(() => {
    const l = () => setNow(blockNames());
    listeners.add(l);
    l();
    return () => void listeners.delete(l);
  }, []);
  return now;
}

const unit = () => (state.status.units as { temperature?: string } | undefined)?.temperature;

/** The temperature unit the status says (undefined until it has said it); re-renders only when it changes. */
export function useStatusUnit(): string | undefined {
  const [now, setNow] = useState(unit);
  useEffect(() => {
    const l = () => setNow(unit());
    listeners.add(l);
    l();
    return () => void listeners.delete(l);
  }, []);
  return now;
}

/**
 * The status of the last state event (a new object with each one, every emit interval, and on a
 * unit change here): re-renders with each state, not with the blocks' patches.
 */
export function useLiveStatus(): Record<string, unknown> {
  const [now, setNow] = useState(() => state.status);
  useEffect(() => {
    const l = () => setNow(state.status);
    listeners.add(l);
    l();
    return () => void listeners.delete(l);
  }, []);
  return now;
}

/**
 * The temperature unit the status says, once it has said it (at most `waitMs` later; undefined
 * then): a page that opens before the first state arrives needs it for what it asks first.
 */
export function statusUnit(waitMs = 5000): Promise<string | undefined> {
  if (unit() !== undefined) return Promise.resolve(unit());
  return new Promise((resolve) => {
    const done = () => {
      if (unit() === undefined && !timedOut) return;
      listeners.delete(done);
      clearTimeout(timer);
      resolve(unit());
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      done();
    }, waitMs);
    listeners.add(done);
  });
}
