// The entity ids edgeblocks suggests to Home Assistant (`default_entity_id`, used only the first
// time Home Assistant sees a unique id). Made from user text (block names), so two can come out
// the same: the entities of one block of one component, or blocks whose names differ only by
// punctuation or case (`ferm.1`, `ferm_1`, `Ferm 1`). Home Assistant would number such ids in the
// order their configs arrive; here they are made distinct by one deterministic rule instead.
import type { EntitySpec } from '../runtime/traits.js';

/**
 * The object part of an entity id as Home Assistant's own slugify makes it: lower case ASCII
 * letters, digits and single underscores (accents dropped, anything else a separator). The one
 * rule for every entity id edgeblocks suggests, block entities and alert sensors alike.
 */
export function haObjectId(...parts: Array<string | number>): string {
  return parts
    .join(' ')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** A block entity's default entity id object part: service and block id, or the nid when the id has no letter or digit HA keeps. */
export function entitySlug(serviceId: string, block: { id: string; nid: number }): string {
  return haObjectId(block.id) ? haObjectId(serviceId, block.id) : haObjectId(serviceId, 'block', block.nid);
}

/** Home Assistant's longest entity id: it cuts a longer one, so two that differ only past it would meet. */
export const MAX_ENTITY_ID_LENGTH = 255;

/** `id` cut to `room` characters, without the underscore a cut may leave at the end. */
const fit = (id: string, room = MAX_ENTITY_ID_LENGTH) => id.slice(0, room).replace(/_+$/, '');
/** `base` with `suffix`, cut so that the suffix (what makes it distinct) is kept. */
const withSuffix = (base: string, suffix: string) => fit(base, MAX_ENTITY_ID_LENGTH - suffix.length) + suffix;

export interface EntityOwner {
  id: string;
  nid: number;
  specs: readonly EntitySpec[];
}

/** The key of one entity in the map defaultEntityIds answers (and of a config's object id). */
export const entityKey = (nid: number, spec: Pick<EntitySpec, 'key'>) => `${nid}_${spec.key}`;

/**
 * The default entity id of every entity of `owners`, by entityKey, no two the same. An entity
 * is `<component>.<slug>`, with its label added when its block has another entity of the same
 * component (a BME280's `sensor.x_room_humidity`), at most 255 characters. Blocks go in nid order: the first keeps an
 * id, a later one that would repeat it gets its nid added (`sensor.x_ferm_1_12`), so a new block
 * never changes an older one's id and the answer does not depend on the order of events.
 */
export function defaultEntityIds(serviceId: string, owners: readonly EntityOwner[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const owner of [...owners].sort((a, b) => a.nid - b.nid)) {
    const slug = entitySlug(serviceId, owner);
    for (const spec of owner.specs) {
      const shared = spec.label && owner.specs.some((s) => s !== spec && s.component === spec.component);
      const base = fit(`${spec.component}.${shared ? `${slug}_${haObjectId(spec.label!)}` : slug}`);
      let id = taken.has(base) ? withSuffix(base, `_${owner.nid}`) : base;
      for (let n = 2; taken.has(id); n++) id = withSuffix(base, `_${owner.nid}_${n}`);
      taken.add(id);
      out.set(entityKey(owner.nid, spec), id);
    }
  }
  return out;
}
