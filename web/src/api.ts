// The public HTTP API as the page uses it: the controller under /{serviceId}/, the datastore and
// history under /history/. Every call answers {ok, status, body, error}; error is the server's
// message in words (422 validation entries included), never a bare status code.

export type { Block, Link, Quantity } from './block-types.js';

/** Dispatched on window when the service answers 401: the session ended. */
export const LOGGED_OUT_EVENT = 'edgeblocks-logged-out';
import type { Block } from './block-types.js';
import { takeEarly } from './early.js';

export interface Answer<T = unknown> {
  ok: boolean;
  status: number;
  body: T;
  error: string;
}

export interface ServiceInfo {
  serviceId: string;
  emitIntervalMs: number;
}

let info: ServiceInfo = { serviceId: 'edge-one', emitIntervalMs: 5000 };

export async function loadServiceInfo(): Promise<ServiceInfo> {
  const early = takeEarly('info');
  if (early) {
    try {
      info = (await early) as ServiceInfo;
      return info;
    } catch {
      // Asked again below, with the error in words.
    }
  }
  const res = await fetch('/dashboard.json');
  if (!res.ok) throw new Error(`the service did not say who it is (HTTP ${res.status})`);
  info = (await res.json()) as ServiceInfo;
  return info;
}

let role: string | null = null;
/** The logged-in user's role (null with auth off), told once at start. */
export function setRole(r: string | null): void {
  role = r;
}
/** A viewer reads everything and changes nothing (the service refuses its writes with 403): the page hides what would fail. */
export const readOnly = (): boolean => role === 'viewer';

export const serviceId = (): string => info.serviceId;
export const emitIntervalMs = (): number => info.emitIntervalMs;
export const controllerUrl = (path: string): string => `/${encodeURIComponent(info.serviceId)}/${path}`;

export function errorText(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as { message?: unknown; error?: unknown; validation?: Array<{ path?: string; message?: string }> };
    let text = typeof b.message === 'string' ? b.message : typeof b.error === 'string' ? b.error : '';
    // Validation entries the message already says (in its own words) are not repeated.
    const details = (b.validation ?? [])
      .filter((v) => !text.includes(`${v.path ?? ''}: ${v.message ?? ''}`) && !(v.message && text.includes(v.message)))
      .map((v) => `${v.path ?? ''}: ${v.message ?? ''}`);
    if (details.length) text = `${text}${text ? ' — ' : ''}${details.join('; ')}`;
    if (text) return status >= 400 ? `${text} (${status})` : text;
  }
  if (typeof body === 'string' && body) return `${body} (${status})`;
  return status === 0 ? 'the service did not answer (offline?)' : `HTTP ${status}`;
}

async function call<T>(method: string, url: string, body?: unknown): Promise<Answer<T>> {
  return answerOf<T>(
    url,
    fetch(url, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

/** The answer of a request made (a fetch of `url`). */
async function answerOf<T>(url: string, request: Promise<Response>): Promise<Answer<T>> {
  let res: Response;
  try {
    res = await request;
  } catch {
    return { ok: false, status: 0, body: undefined as T, error: errorText(0, undefined) };
  }
  // A session that ended (auth on): the page says "logged out" and offers the login again
  // (live.ts listens), instead of reloading under the user's hands.
  if (res.status === 401 && !url.startsWith('/auth/')) window.dispatchEvent(new Event(LOGGED_OUT_EVENT));
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { ok: res.ok, status: res.status, body: parsed as T, error: res.ok ? '' : errorText(res.status, parsed) };
}

export const post = <T = unknown>(url: string, body?: unknown) => call<T>('POST', url, body ?? {});
export const get = <T = unknown>(url: string) => call<T>('GET', url);
export const put = <T = unknown>(url: string, body: unknown) => call<T>('PUT', url, body);
export const del = <T = unknown>(url: string) => call<T>('DELETE', url);
export const controller = <T = unknown>(path: string, body?: unknown) => post<T>(controllerUrl(path), body);

export const patchBlock = (block: { id: string; type: string }, data: Record<string, unknown>) =>
  controller<Block>('blocks/patch', { id: block.id, type: block.type, serviceId: serviceId(), data });
export const createBlock = (block: Omit<Block, 'serviceId'>) =>
  controller<Block>('blocks/create', { ...block, serviceId: serviceId() });

/** Browser download of a Blob or text. */
export function download(name: string, content: Blob | string, type = 'application/json'): void {
  const blob = typeof content === 'string' ? new Blob([content], { type }) : content;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
