// Request and response schemas of the block API, generated from the block type tables.
import { Type, type TSchema } from '@sinclair/typebox';
import { dataSchema } from '../codec/schema.js';
import type { BlockTypeDef } from '../runtime/types.js';

export function blockSchemas(types: BlockTypeDef<any, any>[]) {
  const perType = types.map((t) =>
    Type.Object(
      {
        id: Type.String(),
        nid: Type.Optional(Type.Integer()),
        type: Type.Literal(t.type),
        serviceId: Type.Optional(Type.String()),
        data: dataSchema(t.fields, t.description, t.legacy),
        meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      },
      { title: t.type, description: t.description },
    ),
  );
  const block: TSchema = Type.Union(perType, { description: 'A block. Quantities accept typed objects, bare numbers in your unit, or postfixed keys such as "offset[delta_degF]"; links accept {"__objtype":"Link","id":...} or "sensorId<>": "<id>".' });
  const ident = Type.Object({ id: Type.Optional(Type.String()), nid: Type.Optional(Type.Integer()), serviceId: Type.Optional(Type.String()) }, { description: 'Names a block by id or nid (nid wins).' });
  const identOut = Type.Object({ id: Type.String(), nid: Type.Integer(), type: Type.String(), serviceId: Type.String() });
  const backup = Type.Object({
    timestamp: Type.String(),
    version: Type.String(),
    blocks: Type.Array(Type.Unknown()),
    store: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  });
  const messages = Type.Object({ messages: Type.Array(Type.String()) });
  const rename = Type.Object({ existing: Type.String(), desired: Type.String() }, { description: 'The current id and the new one' });
  return { block, ident, identOut, backup, messages, rename, blocks: Type.Array(block) };
}
