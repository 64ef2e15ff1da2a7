// What an alert channel is. A channel kind is one file in this folder exporting a ChannelDef:
// its name (the key under `alerts` in the config file, and the channel's name in the outbox and
// the history), its settings schema (which fields are secret), and `create`. The registry
// (index.ts) lists them; the config schema, the dashboard's forms and the configuration
// reference come from the schemas, the running channels from `create`.
import { FormatRegistry, type Static, type TObject } from '@sinclair/typebox';
import type { Logger } from '../../log.js';
import type { AlertMessage } from '../types.js';
import { httpCall } from './http.js';

/** Marks a settings field whose value is never served, logged or shown: only whether it is set. */
export const SECRET = { 'x-secret': true } as const;

export interface ChannelContext {
  /** Time limit of one send. */
  timeoutMs: number;
  /** Whether control runs (enabled, the loop ticking): the heartbeat calls only then. */
  controlRuns: () => boolean;
  log: Logger;
}

/** A running channel. Errors never carry secrets. */
export interface Channel {
  readonly name: string;
  /** Delivers one alert message (through the outbox, with retries); resolves with what the receiver said. Absent: the channel takes no messages (the heartbeat). */
  send?(message: AlertMessage): Promise<string>;
  /** What `POST /alerts/test` does: resolves with what the receiver said, throws when it did not take it. */
  test(message: AlertMessage): Promise<string>;
  start?(): void;
  close?(): Promise<void> | void;
  /** Counters for GET /alerts and system/status. */
  status?(): Record<string, unknown>;
}

export interface ChannelDef<S extends TObject = TObject> {
  /** The config key under `alerts` and the channel's name everywhere else. */
  readonly name: string;
  /** For the dashboard: what the channel is, in a few words. */
  readonly title: string;
  readonly schema: S;
  create(settings: Static<S>, ctx: ChannelContext): Channel;
}

export function defineChannel<S extends TObject>(def: ChannelDef<S>): ChannelDef<S> {
  return def;
}

/** The names of the fields a schema marks secret. */
export function secretFields(schema: TObject): string[] {
  return Object.entries(schema.properties)
    .filter(([, s]) => (s as Record<string, unknown>)['x-secret'] === true)
    .map(([k]) => k);
}

/** POST with a time limit; a non-2xx answer (a redirect too) is an error naming the status. */
export function post(
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<string> {
  return httpCall(url, { method: 'POST', ...init });
}

/**
 * A URL a send can use: the pattern only looks at its start, so `http://a b/` or `http://[::1/x`
 * passed it, was stored with no error shown, and every send failed with ERR_INVALID_URL.
 */
const HTTP_URL = 'http-url';
if (!FormatRegistry.Has(HTTP_URL)) FormatRegistry.Set(HTTP_URL, (value) => URL.canParse(value));

/** An http(s) URL setting. */
export const urlOptions = (title: string, description: string) =>
  ({
    title,
    pattern: '^https?://[^/\\s]+',
    format: HTTP_URL,
    errorMessage: 'must be an http:// or https:// URL',
    description,
  }) as const;

/**
 * A value sent in an HTTP header (the ntfy token, a webhook's extra headers): fetch refuses a line
 * break, a control character or a character beyond Latin-1, so such a value was stored with no
 * error shown and every send failed ("cannot connect (Headers.append: ...)", quoting the secret).
 * Never quoted back: it is a secret.
 */
export const headerValueOptions = {
  pattern: '^[\\t\\x20-\\x7e\\x80-\\xff]*$',
  errorMessage: 'may hold no line break, control character or character beyond Latin-1 (an HTTP header value)',
  writeOnly: true,
} as const;

/** The name of an extra HTTP header: an HTTP token (RFC 9110), as fetch takes it: no space, no colon. */
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

export const EVENT_TAGS: Record<AlertMessage['event'], string> = {
  fired: 'warning',
  reminder: 'hourglass',
  resolved: 'white_check_mark',
  acknowledged: 'ok_hand',
  test: 'test_tube',
};
