// Request and response schemas of the block API, generated from the block type tables. Each
// type is one shared schema (its name is its $id, a component of the OpenAPI document); routes
// refer to them, so the document holds every type once.
import { Type, type TSchema } from '@sinclair/typebox';
import { complete, writable } from '../codec/apply.js';
import { encodeData } from '../codec/encode.js';
import type { FieldTable } from '../codec/fields.js';
import { dataSchema } from '../codec/schema.js';
import { DEFAULT_UNITS } from '../codec/units.js';
import type { BlockTypeDef } from '../runtime/types.js';
import { checkedBy } from './route-validation.js';

/**
 * Block bodies go as they are to the runtime, whose codec checks them for REST, MQTT and backups
 * alike and names each bad field; the route schemas below document them.
 */
const codec = <T extends object>(schema: T): T => checkedBy('the block codec', schema);

const ref = (id: string) => ({ $ref: `${id}#` });

/** The first example of create, write and read: what "Try it out" sends. */
export const EXAMPLE_ID = 'my sensor';
const EXAMPLE_TYPE = 'TempSensorMock';

/** A create body per creatable type, with the type's defaults (the TempSensorMock one first). */
function createExamples(types: BlockTypeDef<any, any>[]) {
  const creatable = types
    .filter((t) => !t.system)
    .sort((a, b) => Number(b.type === EXAMPLE_TYPE) - Number(a.type === EXAMPLE_TYPE));
  return creatable.map((t, i) => {
    const data = encodeData(t.fields, writable(t.fields, complete(t.fields, {})), 'default', DEFAULT_UNITS);
    // Links are left out: they name blocks that may not exist yet.
    for (const [name, field] of Object.entries(t.fields as FieldTable))
      if (field.spec.kind === 'link') delete data[name];
    return { id: i === 0 ? EXAMPLE_ID : `my ${t.type}`, type: t.type, data };
  });
}

export function blockSchemas(types: BlockTypeDef<any, any>[]) {
  const perType = types.map((t) =>
    Type.Object(
      {
        id: Type.String(),
        nid: Type.Optional(Type.Integer()),
        type: Type.Literal(t.type),
        serviceId: Type.Optional(Type.String()),
        data: dataSchema(t.fields, { description: t.description }, t.legacy),
        meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      },
      // x-implements: the interfaces a link to this type satisfies (the dashboard's link pickers).
      {
        $id: t.type,
        title: t.type,
        description: t.description,
        'x-role': t.role,
        'x-implements': [t.type, ...t.implements],
      },
    ),
  );
  const description =
    'A block. Quantities accept typed objects, bare numbers in your unit, or postfixed keys such as "offset[delta_degF]"; links accept {"__objtype":"Link","id":...} or "sensorId<>": "<id>".';
  const anyType = { anyOf: types.map((t) => ref(t.type)), description };
  const blockShared = { $id: 'Block', ...anyType };
  const identShared = Type.Object(
    { id: Type.Optional(Type.String()), nid: Type.Optional(Type.Integer()), serviceId: Type.Optional(Type.String()) },
    { $id: 'BlockIdent', description: 'Names a block by id or nid (nid wins).' },
  );
  const identOutShared = Type.Object(
    {
      id: Type.String(),
      nid: Type.Integer(),
      type: Type.String(),
      serviceId: Type.String(),
      dangling: Type.Optional(
        Type.Array(Type.Object({ id: Type.String(), field: Type.String() }), {
          description:
            'blocks/delete: the links of other blocks that pointed at the deleted block and now point nowhere, and the Sequence instruction lines that name it (block id, field path in its data)',
        }),
      ),
    },
    { $id: 'BlockIdentOut' },
  );
  const backup = Type.Object({
    timestamp: Type.String(),
    version: Type.String(),
    blocks: Type.Array(Type.Unknown()),
    store: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  });
  const messages = Type.Object({
    messages: Type.Array(Type.String(), {
      description: 'every failure and warning in the order met (the one list Brewblox clients show)',
    }),
    failures: Type.Array(Type.String(), {
      description: 'what of the backup was not loaded (a block, a datastore document), and why',
    }),
    warnings: Type.Array(Type.String(), {
      description:
        'loaded with something left out: an unknown or retired field (named with its block; the block is kept), a Spark system block with no counterpart here',
    }),
  });
  const rename = Type.Object(
    { existing: Type.String(), desired: Type.String() },
    { description: 'The current id and the new one', examples: [{ existing: EXAMPLE_ID, desired: 'my beer sensor' }] },
  );
  const backupIn = Type.Object(
    {
      blocks: Type.Array(Type.Unknown(), { description: 'the blocks, as blocks/backup/save gives them' }),
      store: Type.Optional(
        Type.Union([Type.Array(Type.Record(Type.String(), Type.Unknown())), Type.Null()], {
          description:
            "the controller's datastore documents: they replace its namespace; an empty list empties it only in a backup of this controller (one with version), as a Brewblox Spark backup's store is its block names",
        }),
      ),
    },
    { description: 'A backup as blocks/backup/save answers it; its other members (timestamp, version) are not read' },
  );
  const examples = createExamples(types);
  /** Inline (a reference cannot carry the example), and small. */
  const ident = { ...identShared, $id: undefined, examples: [{ id: EXAMPLE_ID }] };
  return {
    /** Register each with `app.addSchema` in the context of the routes. */
    shared: [...perType, blockShared, identShared, identOutShared] as TSchema[],
    block: ref('Block'),
    /** Create and write bodies: any type, with one example per type. */
    blockIn: codec({ ...anyType, examples }),
    /** Patch body: any type; the example changes one field. */
    patchIn: codec({ ...anyType, examples: [{ id: EXAMPLE_ID, type: EXAMPLE_TYPE, data: { setting: 21.5 } }] }),
    ident: codec(ident),
    /** blocks/delete: one block, or a list of them. */
    deleteIn: codec({ anyOf: [ident, { type: 'array', items: ident }], examples: ident.examples }),
    identsIn: codec({ type: 'array', items: ident }),
    identOut: ref('BlockIdentOut'),
    backup,
    backupIn: codec(backupIn),
    messages,
    rename: codec(rename),
    blocks: { type: 'array', items: ref('Block') },
    blocksIn: codec({ type: 'array', items: ref('Block'), examples: [examples.slice(0, 1)] }),
  };
}
