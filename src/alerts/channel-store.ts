// Which channels are in force, and where each comes from. The config file's `alerts.<name>`
// wins and is read-only from the dashboard (the file is the administrator's, and is read again
// only at a restart); a kind the file does not set can be added, edited and removed from the
// dashboard, stored in the database (settings table, key `alert-channel:<name>`), checked by
// the same schema as the file's. Secrets are write-only: an edit that leaves a secret out keeps
// the stored one, `null` removes it, and what is served says only whether each is set.
import type { Logger } from '../log.js';
import { parseJson } from '../shared/json.js';
import { MAX_RECORD_BYTES } from '../shared/limits.js';
import type { Db } from '../store/db.js';
import { CHANNELS, channelDef } from './channels/index.js';
import { secretFields, type ChannelDef } from './channels/types.js';
import { checked, SchemaError } from './schema-check.js';
import type { AlertSettings } from './settings.js';

export type ChannelSource = 'config' | 'dashboard';

export interface ChannelInForce {
  def: ChannelDef;
  settings: Record<string, unknown>;
  source: ChannelSource;
}

/** What GET /alerts/channels says about one kind: never a secret value. */
export interface ChannelView {
  name: string;
  title: string;
  /** Where the channel in force comes from; null: not set up. */
  source: ChannelSource | null;
  /** The settings in force without the secret fields. */
  settings: Record<string, unknown> | null;
  /** Per secret field: whether it is set, and for a URL where it goes (scheme and host, never the path). */
  secrets: Record<string, { set: boolean; host?: string }>;
  /** A dashboard copy the config file's channel of the same kind overrides (kept, not used). */
  overridden: boolean;
  /** The stored dashboard settings no longer pass the schema (not used until saved again). */
  error: string | null;
  /** The settings schema; fields marked `x-secret` are write-only. */
  schema: unknown;
}

export class ChannelConflictError extends Error {}
export class ChannelNotFoundError extends Error {}

const KEY = (name: string) => `alert-channel:${name}`;

export class ChannelStore {
  private readonly errors = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly config: AlertSettings,
    private readonly log: Logger,
  ) {}

  /** The channels in force: the config file's, then the dashboard's for the kinds the file leaves out. */
  inForce(): ChannelInForce[] {
    return CHANNELS.flatMap((def): ChannelInForce[] => {
      const fromFile = this.config[def.name];
      if (fromFile !== undefined) return [{ def, settings: fromFile as Record<string, unknown>, source: 'config' }];
      const stored = this.stored(def);
      return stored ? [{ def, settings: stored, source: 'dashboard' }] : [];
    });
  }

  /**
   * What GET /alerts/channels shows. `settings: false` (a viewer) leaves out the settings too,
   * where a secret URL goes, and why stored settings fail their schema (the reason quotes them):
   * addresses, hosts and user names are the admin's to see, not only the secrets.
   */
  view(opts: { settings: boolean } = { settings: true }): ChannelView[] {
    const inForce = new Map(this.inForce().map((c) => [c.def.name, c]));
    return CHANNELS.map((def) => {
      const c = inForce.get(def.name);
      const secrets = secretFields(def.schema);
      const settings =
        c && opts.settings
          ? Object.fromEntries(Object.entries(c.settings).filter(([k]) => !secrets.includes(k)))
          : null;
      const error = this.errors.get(def.name) ?? null;
      return {
        name: def.name,
        title: def.title,
        source: c?.source ?? null,
        settings,
        secrets: Object.fromEntries(
          secrets.map((k) => {
            const state = secretState(c?.settings[k]);
            return [k, opts.settings ? state : { set: state.set }];
          }),
        ),
        overridden: c?.source === 'config' && this.row(def.name) !== undefined,
        error: error && !opts.settings ? 'its stored settings are not valid; an admin sees why' : error,
        schema: def.schema,
      };
    });
  }

  /**
   * Set up or replace the dashboard's channel of kind `name` from `input` (the settings; a secret
   * left out keeps the stored one, null removes it). Throws SchemaError naming the field.
   */
  save(name: string, input: Record<string, unknown>): ChannelInForce {
    const def = this.kind(name);
    if (this.config[name] !== undefined)
      throw new ChannelConflictError(
        `the ${name} channel is set in the config file (alerts.${name}); change it there, or remove it there to manage it here`,
      );
    const before = this.stored(def) ?? {};
    const merged: Record<string, unknown> = { ...input };
    for (const k of secretFields(def.schema)) {
      if (!(k in merged) && before[k] !== undefined) merged[k] = before[k];
      else if (merged[k] === null) delete merged[k];
    }
    const settings = checked(def.schema, merged, name) as Record<string, unknown>;
    this.db
      .prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(KEY(name), JSON.stringify(settings));
    this.errors.delete(name);
    return { def, settings, source: 'dashboard' };
  }

  /** Remove the dashboard's channel of kind `name`. */
  remove(name: string): void {
    this.kind(name);
    const gone = this.db.prepare('DELETE FROM settings WHERE key = ?').run(KEY(name)).changes > 0;
    this.errors.delete(name);
    if (gone) return;
    if (this.config[name] !== undefined)
      throw new ChannelConflictError(`the ${name} channel is set in the config file (alerts.${name}); remove it there`);
    throw new ChannelNotFoundError(`no ${name} channel is set up`);
  }

  private kind(name: string): ChannelDef {
    const def = channelDef(name);
    if (!def)
      throw new ChannelNotFoundError(`no channel kind '${name}'; kinds: ${CHANNELS.map((c) => c.name).join(', ')}`);
    return def;
  }

  private row(name: string): string | undefined {
    return (this.db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(KEY(name)) as string) ?? undefined;
  }

  /** The stored settings, checked again (a newer version may have a stricter schema); null when none or not valid. */
  private stored(def: ChannelDef): Record<string, unknown> | null {
    const raw = this.row(def.name);
    if (raw === undefined) return null;
    const parsed = parseJson(raw, { maxBytes: MAX_RECORD_BYTES, what: `the stored ${def.name} channel` });
    let problem: string;
    if (parsed.ok) {
      try {
        const settings = checked(def.schema, parsed.value, def.name) as Record<string, unknown>;
        this.errors.delete(def.name);
        return settings;
      } catch (e) {
        if (!(e instanceof SchemaError)) throw e;
        problem = e.message;
      }
    } else problem = parsed.reason;
    if (this.errors.get(def.name) !== problem)
      this.log.warn({ channel: def.name, error: problem }, 'stored alert channel is not valid; not used');
    this.errors.set(def.name, problem);
    return null;
  }
}

function secretState(value: unknown): { set: boolean; host?: string } {
  if (value === undefined || value === null || value === '') return { set: false };
  if (typeof value === 'string' && /^https?:\/\//.test(value)) {
    try {
      return { set: true, host: new URL(value).origin };
    } catch {
      return { set: true };
    }
  }
  return { set: true };
}
