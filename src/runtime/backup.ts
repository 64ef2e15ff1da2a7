// Backups: the stored data of every block plus the controller's datastore documents, and
// loading one back (replace, not merge; per-block failures become messages).
import { issuesText, quoteAsSent, sentNumbersOf, type SentNumber } from '../shared/json.js';
import { complete, overlayOwned, sortKeptIssues, withReadonly } from '../codec/apply.js';
import { isPlainObject, type Partial, type ValidationIssue } from '../codec/partial.js';
import { decodeWithLegacy } from '../codec/legacy.js';
import { quotedText } from '../../drivers/quoted-text.js';
import { blockBody, FIRST_USER_NID, MAX_ID_LENGTH, type BlockJson } from './body.js';
import { BlockError, conflict, invalid } from './errors.js';
import { actOnHardware } from './batch.js';
import type { BackupStore, BatchScope, RuntimeCore } from './core.js';
import { implementsIface, type AnyBlock, type BlockTypeDef, type Data } from './types.js';
import { blockJson } from './block-json.js';
import { holdingRules } from './backup-rules.js';
import { followTrimmed, spacedIds, trimmedWarning } from './backup-ids.js';

export interface Backup {
  timestamp: string;
  version: string;
  blocks: BlockJson[];
  store: Record<string, unknown>[];
}

export type { BackupStore };

/** System blocks of the Spark firmware (display, WiFi, touch screen, its pins, groups). */
const SPARK_SYSTEM_TYPES = new Set([
  'DisplaySettings',
  'WiFiSettings',
  'TouchSettings',
  'Spark2Pins',
  'Spark3Pins',
  'OneWireGpioModule',
  'Groups',
  'ActiveGroups',
]);

/** A Spark system block: a known Spark system type, or a system nid (< 100) none of our system blocks has. */
function isSparkOnly(rt: RuntimeCore, type: string, nid: number | undefined): boolean {
  const def = rt.types.get(type);
  if (def?.system) return false;
  return SPARK_SYSTEM_TYPES.has(type) || (nid !== undefined && nid < FIRST_USER_NID && !!def);
}

export function saveBackup(rt: RuntimeCore): Backup {
  const wall = rt.clock.wall() ?? Date.now();
  return {
    timestamp: new Date(wall).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    version: rt.version,
    blocks: rt.blocks().map((b) => blockJson(b, 'stored', rt)),
    store: rt.backupStore?.save() ?? [],
  };
}

/** What a backup load tells: failures and warnings apart, and both in Brewblox's one list. */
export interface BackupLoadResult {
  /** Every failure and warning in the order met: Brewblox's one list (its UI shows it). */
  messages: string[];
  /** What of the backup was not loaded (a block, a datastore document), and why. */
  failures: string[];
  /**
   * Loaded with something left out: a field this controller does not know or that later
   * firmware retired (naming the block and the field; the block is kept without it), or a Spark
   * system block that has no counterpart here.
   */
  warnings: string[];
}

/** Replace every block (and the controller's datastore documents) with a backup's. */
export function loadBackup(rt: RuntimeCore, input: unknown, origin: string): Promise<BackupLoadResult> {
  if (!isPlainObject(input)) throw new BlockError('bad-request', 'a backup must be a JSON object');
  const issues: ValidationIssue[] = [];
  if (!Array.isArray(input.blocks)) issues.push({ path: 'blocks', message: 'required: a list of blocks' });
  if (input.store !== undefined && input.store !== null && !Array.isArray(input.store))
    issues.push({ path: 'store', message: 'must be a list of documents' });
  if (issues.length) throw invalid(`invalid backup: ${issuesText(issues)}`, issues);
  const items = input.blocks as unknown[];
  const store = (input.store ?? null) as unknown[] | null;
  // What `store` says of the controller's documents depends on who saved the backup. This
  // controller's own backups (they carry `version`) hold all of them, an empty list included (it
  // had none). A Brewblox Spark backup's `store` is the Spark service's block-name store
  // ({keys: [id, nid], data}), never documents: an empty one says nothing of them, so it changes
  // none. Any backup's documents (entries with a namespace) replace the namespace.
  const sparkNames = store?.filter(isSparkNameEntry).length ?? 0;
  const documents = store?.filter((d) => !isSparkNameEntry(d)) ?? [];
  const own = typeof input.version === 'string';
  const docs = store && (documents.length > 0 || (own && sparkNames === 0)) ? documents : null;
  const notes = sparkNames
    ? [
        `store: ${sparkNames} entries are a Brewblox Spark service's block names and numbers ({keys: [id, nid]}), not datastore documents; each block of the backup carries its id and nid, so they were not needed${docs ? '' : ", and the controller's documents were kept"}`,
      ]
    : [];
  return rt.exclusively(async () => {
    // A jump moves the blocks that were there, never the backup's (as before any write).
    rt.checkClock();
    return loadBackupBlocks(rt, items, docs as Record<string, unknown>[] | null, origin, notes, sentNumbersOf(input));
  });
}

/** `{keys: [id, nid], data}`: an entry of the Spark service's block-name store. */
function isSparkNameEntry(entry: unknown): boolean {
  return isPlainObject(entry) && Array.isArray(entry.keys) && entry.keys.length === 2 && !('namespace' in entry);
}

function loadBackupBlocks(
  rt: RuntimeCore,
  items: unknown[],
  docs: Record<string, unknown>[] | null,
  origin: string,
  notes: string[],
  sent: readonly SentNumber[],
): BackupLoadResult {
  const messages: string[] = [];
  const failures: string[] = [];
  const warnings: string[] = [];
  const fail = (text: string) => void (failures.push(text), messages.push(text));
  const warn = (text: string) => void (warnings.push(text), messages.push(text));
  for (const note of notes) warn(note);
  const label = (item: unknown, i: number) => {
    const o = isPlainObject(item) ? item : {};
    // Each as sent, cut short: a backup is a body of the client's, of up to its limit.
    const [id, nid, type] = [o.id, o.nid, o.type].map((v) => quotedText(String(v ?? '?'), MAX_ID_LENGTH));
    return `block ${i} (id '${id}', nid ${nid}, type '${type}')`;
  };
  // Every id in the backup is known before any block is decoded, so forward links resolve; an
  // id with white space at an end by both, as the backup has it and as it loads (backup-ids.ts).
  const { trimmed, refused } = spacedIds(rt, items);
  const pending = new Map<string, BlockTypeDef<any, any>>();
  for (const item of items) {
    if (isPlainObject(item) && typeof item.id === 'string' && typeof item.type === 'string') {
      const def = rt.types.get(item.type);
      if (def) pending.set(item.id, def);
      if (def && trimmed.has(item.id)) pending.set(trimmed.get(item.id)!, def);
    }
  }
  const prefs = rt.units;
  // A link that names no block of the backup (or one of another type) is kept as it is, with a
  // warning, as a restart keeps it: a delete leaves such links (blocks/delete's `dangling`), so
  // this controller's own backups hold them, and refusing them deleted the block at the load.
  // The link does nothing until a block of that id and type exists.
  const linkProblem = (id: string, iface: string): string | null => {
    const def = pending.get(id) ?? rt.systemBlockById(id)?.def;
    if (!def) return `block '${id}' does not exist`;
    return implementsIface(def, iface) ? null : `block '${id}' is a ${def.type}, which is not a ${iface}`;
  };

  // Phase 1: decode everything without touching the current blocks.
  interface Prepared {
    def: BlockTypeDef<any, any>;
    nid: number;
    id: string;
    data: Data;
    /** The decoded values, with those the block keeps itself (a tuning's state and result). */
    value: Partial;
    meta: Record<string, unknown>;
    label: string;
    index: number;
    /** Says what was left out of it; called once it is sure to load. */
    dropped: () => void;
  }
  const prepared: Prepared[] = [];
  // What each block of the backup says, told in the order of the blocks once every rule is checked,
  // a number of the block that JSON.parse rounded (a nid of 12345678901234567890) quoted as sent.
  const said = items.map(() => [] as Array<['fail' | 'warn', string]>);
  const tell = (i: number, kind: 'fail' | 'warn', text: string) =>
    (kind === 'fail' ? fail : warn)(quoteAsSent(text, [{ path: `blocks.${i}`, message: text }], sent).message);
  const nids = new Set<number>();
  const ids = new Set<string>();
  // The links of each block that named a block of the backup, checked again once it is known which load.
  const linked = items.map(() => [] as Array<{ id: string; iface: string; path: string }>);
  items.forEach((item, i) => {
    try {
      const spaced = isPlainObject(item) && typeof item.id === 'string' ? item.id : '';
      if (refused.has(spaced)) throw conflict(refused.get(spaced)!);
      const body = blockBody(trimmed.has(spaced) ? { ...(item as object), id: trimmed.get(spaced) } : item, true);
      if (isSparkOnly(rt, body.type, body.nid)) {
        said[i]!.push([
          'warn',
          `${label(item, i)} skipped: a Spark system block that has no counterpart on this controller`,
        ]);
        return;
      }
      const def = rt.typeOf(body.type);
      // The values a block keeps itself are read too, as at a restart: a backup brings back a
      // tuning's proposal and the gains kept for its undo. One that does not decode is left out.
      const loose: string[] = [];
      const checkLink = (id: string, iface: string, path: string): null => {
        const problem = linkProblem(id, iface);
        if (problem) loose.push(`${path.replace(/^data\./, '')}: ${problem}`);
        else linked[i]!.push({ id, iface, path: path.replace(/^data\./, '') });
        return null;
      };
      const decoded = decodeWithLegacy(def.fields, def.legacy, body.data, { prefs, checkLink, owned: true });
      const { value, retired } = decoded;
      const sorted = sortKeptIssues(def.fields, value, decoded.issues);
      const errors = sorted.blocking;
      const issues = [
        ...sorted.unknown,
        ...sorted.owned.map((x) => ({
          path: x.root,
          message: `a value the block keeps itself that does not decode (${x.message})`,
        })),
      ];
      if (errors.length) throw invalid(errors.map((x) => `${x.path}: ${x.message}`).join('; '));
      // An older (or newer) backup: what this controller does not know is left out field by
      // field, and the block is kept (said once it is).
      const dropped = () => {
        if (trimmed.has(spaced)) said[i]!.push(['warn', trimmedWarning(label(item, i), spaced, body.id!)]);
        for (const x of [...issues, ...retired])
          said[i]!.push([
            'warn',
            `${label(item, i)}: field '${x.path.replace(/^data\./, '')}' dropped (${droppedWhy(x.message)})`,
          ]);
        for (const x of loose)
          said[i]!.push([
            'warn',
            `${label(item, i)} loaded; its link ${x}, so it is kept pointing nowhere, as after a delete`,
          ]);
      };
      const meta = body.meta ?? {};
      if (def.system) {
        const data = complete(def.fields, value);
        prepared.push({
          def,
          nid: def.system.nid,
          id: def.system.id,
          data,
          value,
          meta,
          label: label(item, i),
          index: i,
          dropped,
        });
        return;
      }
      if (body.id === undefined) throw invalid('no id');
      if (body.nid === undefined) throw invalid('no nid');
      if (body.nid < FIRST_USER_NID) throw invalid(`nid ${body.nid} is not a user nid and no system block has it`);
      if (nids.has(body.nid)) throw conflict(`nid ${body.nid} appears twice`);
      if (ids.has(body.id) || rt.systemBlockById(body.id)) throw conflict(`id '${body.id}' appears twice`);
      nids.add(body.nid);
      ids.add(body.id);
      const data = complete(def.fields, value);
      prepared.push({ def, nid: body.nid, id: body.id, data, value, meta, label: label(item, i), index: i, dropped });
    } catch (e) {
      said[i]!.push(['fail', `${label(item, i)} failed: ${e instanceof Error ? e.message : String(e)}`]);
    }
  });
  const loading = holdingRules(rt, prepared, (p, kind, text) => said[p.index]!.push([kind, text]));
  // A link to a block of the backup that failed (an id refused, the second of two with one id) is
  // told as one to a block the backup lacks is: it loads pointing nowhere, or at another type.
  const loadedDefs = new Map(loading.filter((p) => !p.def.system).map((p) => [p.id, p.def]));
  for (const p of loading)
    for (const link of linked[p.index]!) {
      const def = loadedDefs.get(trimmed.get(link.id) ?? link.id) ?? rt.systemBlockById(link.id)?.def;
      const problem = !def
        ? `block '${link.id}' of the backup was not loaded`
        : implementsIface(def, link.iface)
          ? null
          : `block '${link.id}' is a ${def.type}, which is not a ${link.iface}`;
      if (problem)
        said[p.index]!.push([
          'warn',
          `${p.label} loaded; its link ${link.path}: ${problem}, so it is kept pointing nowhere, as after a delete`,
        ]);
    }
  said.forEach((told, i) => {
    for (const [kind, text] of told) tell(i, kind, text);
  });
  if (items.length === 0) {
    throw invalid(
      'the backup holds no block, and loading it would delete every block, so nothing was changed; to delete every block use blocks/all/delete',
      [{ path: 'blocks', message: 'empty: no block to load' }],
    );
  }
  if (loading.length === 0) {
    throw invalid(`no block of the backup can be loaded, so nothing was changed: ${messages.join('; ')}`, [
      { path: 'blocks', message: 'no loadable block' },
    ]);
  }

  // Phase 2: swap the blocks in memory, then commit them in one transaction (or undo the swap).
  const previous = rt.blocks();
  const underway = previous.flatMap((b) => {
    const text = b.def.underway?.(b);
    return text ? [{ id: b.id, nid: b.nid, text }] : [];
  });
  const previousSystem = previous.filter((b) => b.def.system).map((b) => ({ block: b, data: b.data, meta: b.meta }));
  const previousIds = previous.filter((b) => !b.def.system).map((b) => b.id);
  // What their delete hooks do to the hardware (outputs off, chips let go) waits for the commit,
  // as in a batch: a load that cannot be stored touches no output.
  const scope: BatchScope = { undo: [], events: [], commit: [] };
  rt.scope = scope;
  try {
    for (const b of previous) if (!b.def.system) rt.remove(b, false);
  } finally {
    rt.scope = null;
  }
  const changed: AnyBlock[] = [];
  for (const p of loading) {
    if (p.def.system) {
      const sys = rt.table.byNid(p.nid)!;
      sys.data = withReadonly(p.def.fields, sys.data, p.data) as AnyBlock['data'];
      overlayOwned(p.def.fields, sys.data as Data, p.value);
      sys.meta = p.meta;
      changed.push(sys);
    } else {
      changed.push(rt.insert(p.def, p.nid, p.id, p.data, p.meta, p.value));
    }
  }
  followTrimmed(rt, new Map([...trimmed].filter(([, to]) => loadedDefs.has(to))));
  // The blocks, the backup's nids and the controller's documents in one transaction: a write
  // that fails (a full or failing card) or a kill -9 part way leaves all as it was, never the
  // backup's blocks beside the documents (units, alert rules) of before.
  let documentFailures: string[] = [];
  try {
    rt.persistence.replaceBlocks(
      rt.blocks().map((b) => rt.record(b)),
      () => {
        for (const p of loading) if (!p.def.system) rt.persistence.reserveNid(p.nid);
        if (docs && rt.backupStore) documentFailures = rt.backupStore.load(docs) ?? [];
      },
    );
  } catch (e) {
    // The backup's blocks never ran: taken back without their delete hooks.
    for (const b of rt.blocks()) if (!b.def.system) rt.uncreate(b);
    for (const b of previous) if (!b.def.system) rt.restoreInMemory(b);
    for (const p of previousSystem) Object.assign(p.block, { data: p.data, meta: p.meta });
    rt.afterStructureChange();
    throw e;
  }
  for (const u of underway) {
    const now = rt.table.byNid(u.nid);
    const again = now?.def.underway?.(now);
    warn(
      `block '${u.id}': ${u.text} was under way; ${again ? `the backup's block has ${again}, which resumes as after a restart` : 'it ended with the load'}`,
    );
  }
  for (const b of rt.blocks()) rt.table.setWritten(b.nid, rt.recordString(b));
  try {
    rt.backupStore?.committed?.();
  } catch (e) {
    // Telling of the documents' change must not keep the hardware actions and the blocks from running.
    rt.log.error({ err: e }, "telling of a backup load's documents failed");
  }
  for (const text of documentFailures) fail(text);
  rt.afterStructureChange();
  actOnHardware(rt, scope);
  for (const b of changed) b.nextUpdate = -Infinity;
  rt.tick();
  const kept = new Set(rt.blocks().map((b) => b.id));
  rt.emit('change', { changed, deleted: previousIds.filter((id) => !kept.has(id)), origin });
  return { messages, failures, warnings };
}

/** A dropped field's reason in a few words: an unknown field's list of known ones is left to the docs. */
function droppedWhy(message: string): string {
  return message.startsWith('unknown field') ? 'not a field of this type on this controller' : message;
}
