// The alert rules in force: the config's layer (alerts.rules, alerts.remindHours) under the rules
// document {namespace: <service id>, id: "alerts"} (rules.ts merges them). A document that is not
// valid leaves the previous rules in force and is reported (error); the document follows a
// block's rename and drops a deleted block's settings. Keys of the stored document this release
// does not know (a later release's, after a rollback) are passed over, named once in the log and
// in `error`, and kept in the document by a save (rules-unknown.ts); a client's document is held
// to the schema whole.
import type { Logger } from '../log.js';
import type { Doc, DocumentStore } from '../store/documents.js';
import { docBody, effectiveRules, renamedIn, RULES_DOC_ID, withinBounds, withoutBlocks, type Rules } from './rules.js';
import { splitUnknown, type UnknownKey, unknownNames, withUnknown } from './rules-unknown.js';
import type { AlertSettings } from './settings.js';

export interface RulesInForceDeps {
  settings: AlertSettings;
  serviceId: string;
  documents: DocumentStore;
  log: Logger;
}

export class RulesInForce {
  rules: Rules;
  error: string | null = null;
  /** The unknown keys last said in the log (said again only when they change). */
  private unknownSaid = '';

  constructor(private readonly d: RulesInForceDeps) {
    this.rules = effectiveRules(this.configRules(), null);
    this.load();
  }

  /** The rules, the stored document as this release takes it back in set() (without unknown keys), and the error. */
  current(): { rules: Rules; document: Record<string, unknown> | null; error: string | null } {
    const doc = this.stored();
    return { rules: this.rules, document: doc && doc.known, error: this.error };
  }

  /** The stored document without its datastore key, split into what the schema knows and what it does not. */
  private stored(): { known: Record<string, unknown>; unknown: UnknownKey[] } | null {
    const doc = docBody(this.d.documents.get(this.d.serviceId, RULES_DOC_ID));
    return doc && splitUnknown(doc);
  }

  /**
   * Validate and store the rules document; throws SchemaError naming the field (an unknown key
   * too). The stored document's keys this release does not know are kept.
   */
  set(input: Record<string, unknown>): Rules {
    const body = docBody(input)!;
    effectiveRules(this.configRules(), body);
    const kept = withUnknown(body, this.stored()?.unknown ?? []);
    this.d.documents.setMany([{ ...kept, namespace: this.d.serviceId, id: RULES_DOC_ID }]);
    this.load();
    return this.rules;
  }

  /** The config's layer of the rules: alerts.rules, and alerts.remindHours as the remindHours rule. */
  private configRules(): Record<string, unknown> {
    const { remindHours, rules } = this.d.settings;
    return remindHours === undefined ? (rules ?? {}) : { ...rules, remindHours };
  }

  isRulesKey(namespace: string, id: string): boolean {
    return namespace === this.d.serviceId && id === RULES_DOC_ID;
  }

  load(): boolean {
    const split = this.stored();
    const doc = split && split.known;
    const unknown = split?.unknown ?? [];
    const passedOver = this.passedOver(unknown);
    const withNote = (error: string | null) => [error, passedOver].filter(Boolean).join('; ') || null;
    try {
      this.rules = effectiveRules(this.configRules(), doc);
      this.error = withNote(null);
    } catch (e) {
      // A document an older release stored (or a client wrote to the datastore, which takes any
      // document) may hold values outside the bounds: those are brought within them, and the rest of the brewer's rules keep applying.
      const bounded = doc ? withinBounds(doc) : { doc, changed: [] };
      try {
        if (!bounded.changed.length) throw e;
        this.rules = effectiveRules(this.configRules(), bounded.doc);
      } catch {
        this.error = withNote(`the stored rules are not valid (${(e as Error).message}); the previous ones apply`);
        this.d.log.warn({ error: this.error }, 'alert rules document is not valid; the previous rules stay');
        return true;
      }
      const error = `the stored rules held values outside their ranges (saved by an older release, or written to the datastore directly); each is used at the nearest bound: ${bounded.changed.join('; ')}`;
      this.d.log.warn(
        { changed: bounded.changed },
        "alert rules document holds values outside the rules' ranges (stored by an older release, or written to the datastore directly); they are used at the nearest bound, the other rules as stored",
      );
      // Stored back as used: the document a client reads is then one this release takes when it is
      // sent back with a change (the dashboard's form sends the stored document with the fields it
      // shows), not refused for a value the brewer never typed. Older releases take these values too.
      try {
        const kept = withUnknown(bounded.doc ?? {}, unknown);
        this.d.documents.setMany([{ ...kept, namespace: this.d.serviceId, id: RULES_DOC_ID } as Doc]);
      } catch (err) {
        this.d.log.warn(
          { err },
          'could not store the alert rules within their ranges; they are brought within at each load',
        );
      }
      // After the store (its change event loads the document again, now valid): what was changed is still said.
      this.error = withNote(error);
    }
    return true;
  }

  /** What is said of the stored document's unknown keys (null: none); logged once for each set of them. */
  private passedOver(unknown: UnknownKey[]): string | null {
    const names = unknownNames(unknown).sort();
    const said = names.join(', ');
    if (said !== this.unknownSaid && names.length)
      this.d.log.warn(
        { unknown: names },
        `alert rules document holds keys this release does not know (stored by a later release?): ${said}; they are passed over and kept in the document, every other rule applies`,
      );
    this.unknownSaid = said;
    if (!names.length) return null;
    return `the stored rules hold keys this release does not know (stored by a later release, then rolled back?): ${said}; they are passed over and kept when the rules are saved, every other rule applies`;
  }

  /** A block's alert settings follow its rename ([before, after] ids) and go away with its delete. */
  followBlocks(renames: Array<[string, string]>, deleted: string[]): void {
    let doc: Record<string, unknown> | null = this.d.documents.get(this.d.serviceId, RULES_DOC_ID);
    let changed = false;
    const configBlocks = this.configRules().blocks;
    for (const [before, after] of renames) {
      const fromConfig =
        isObject(configBlocks) && Object.hasOwn(configBlocks, before) && isObject(configBlocks[before])
          ? configBlocks[before]
          : undefined;
      const next = renamedIn(doc, before, after, fromConfig);
      if (next) [doc, changed] = [{ ...next, namespace: this.d.serviceId, id: RULES_DOC_ID }, true];
    }
    const next = withoutBlocks(doc, deleted);
    if (next) [doc, changed] = [next, true];
    // The rename or delete is done: its rules follow even into a full datastore.
    if (changed && doc) this.d.documents.setMany([doc as Doc], { unbounded: true });
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
