// Commands from Home Assistant (`<root>/ha/<serviceId>/<nid>/set/<key>`): read in the unit of the
// config last announced (discovery.ts keeps what went out) and patched into the block through the
// runtime. A command to an entity that is not there, one that cannot be read, one to a block another
// block drives or that is disabled (a value by hand would not be used) and one the runtime refuses
// are dropped, each with a line in the log saying why: lines others cause, so they go through a
// WarningLimiter. Refusals to driven or disabled blocks are limited per block, so that a user who
// tries one block and then another sees why each was refused; the sources are bounded (only blocks
// that exist get that far, and past DRIVEN_SOURCES of them new ones share one allowance:
// log/limit.ts).
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import type { UnitsSetting } from '../runtime/units-setting.js';
import { announce, commandPatch, commandRefusal, type Announcement } from './entities.js';
import { entityKey } from './entity-ids.js';

/** The origin of a patch made by a command from Home Assistant. */
export const HA_ORIGIN = 'homeassistant';

/** Blocks whose refusals each have their own allowance in the log. */
export const DRIVEN_SOURCES = 256;

export interface CommandOptions {
  runtime: BlockRuntime;
  units: Pick<UnitsSetting, 'prefs'>;
  /** What each entity's config (by `<nid>_<key>`) last told Home Assistant: commands are read in it. */
  announced: ReadonlyMap<string, Announcement>;
  log: Logger;
}

export class HaCommands {
  /** Lines caused by what others publish: one a minute per kind. */
  private readonly warnings: WarningLimiter;
  /** Refusals of commands to driven or disabled blocks: one a minute per block. */
  private readonly drivenWarnings: WarningLimiter;

  constructor(private readonly o: CommandOptions) {
    this.warnings = new WarningLimiter(o.log);
    this.drivenWarnings = new WarningLimiter(o.log, { maxSources: DRIVEN_SOURCES });
  }

  /** A command on `topic` (`.../<nid>/set/<key>`), its payload as the subscription parsed it. */
  handle(topic: string, payload: unknown): void {
    const parts = topic.split('/');
    const key = parts[parts.length - 1]!;
    const nid = Number(parts[parts.length - 3]);
    const block = this.o.runtime.blocks().find((b) => b.nid === nid);
    const spec = block && block.def.homeAssistant?.find((s) => s.key === key && s.write);
    if (!block || !spec) {
      this.warnings.warn('unknown entity', { topic }, `home assistant command on ${topic} dropped: no such entity`);
      return;
    }
    const json = this.o.runtime.read(block).json();
    // Driven by another block or disabled, a value by hand would not be used (stored, it only
    // replaced the setting kept for later): refused, as the dashboard offers no control then.
    const refused = commandRefusal(json);
    if (refused !== null) {
      this.drivenWarnings.warn(
        `refused command to ${nid}`,
        { topic, reason: refused },
        `home assistant command on ${topic} refused: ${refused}`,
      );
      return;
    }
    const patch = commandPatch(
      spec,
      this.o.announced.get(entityKey(nid, { key })) ?? announce(spec, this.o.units.prefs),
      payload,
    );
    if ('error' in patch) {
      this.warnings.warn(
        'bad command',
        { topic, reason: patch.error },
        `home assistant command on ${topic} dropped: ${patch.error}`,
      );
      return;
    }
    try {
      this.o.runtime.patch(
        { id: json.id, nid: json.nid, serviceId: json.serviceId, type: json.type, data: patch.data },
        HA_ORIGIN,
      );
    } catch (e) {
      this.warnings.warn(
        'refused command',
        { topic, reason: (e as Error).message },
        `home assistant command on ${topic} refused: ${(e as Error).message}`,
      );
    }
  }
}
