// A block as the API shows it ({id, nid, type, serviceId, data, meta}), in a read mode and the
// user's unit preference: as an object, and as JSON text written straight from the field table.
// The reads (reads.ts) cache the text; the runtime's own operations answer with the object.
import { encodeData, writeData, type ReadMode } from '../codec/encode.js';
import type { UnitPrefs } from '../codec/units.js';
import type { BlockJson } from './body.js';
import type { AnyBlock, Data } from './types.js';

/** Whose blocks: the service id and the unit preference they are shown in. */
export interface BlockOwner {
  readonly serviceId: string;
  readonly units: UnitPrefs;
}

export function blockJson(block: AnyBlock, mode: ReadMode, owner: BlockOwner): BlockJson {
  const json: BlockJson = {
    id: block.id,
    nid: block.nid,
    type: block.def.type,
    serviceId: owner.serviceId,
    data: encodeData(block.def.fields, block.data as Data, mode, owner.units),
  };
  if (mode !== 'logged') json.meta = block.meta;
  return json;
}

/** `JSON.stringify(blockJson(...))`; the default mode is written straight from the field table (writeData). */
export function blockText(block: AnyBlock, mode: ReadMode, owner: BlockOwner): string {
  if (mode !== 'default') return JSON.stringify(blockJson(block, mode, owner));
  const parts = [
    '{"id":',
    JSON.stringify(block.id),
    ',"nid":',
    JSON.stringify(block.nid),
    ',"type":',
    JSON.stringify(block.def.type),
    ',"serviceId":',
    JSON.stringify(owner.serviceId),
    ',"data":',
  ];
  writeData(parts, block.def.fields, block.data as Data, owner.units);
  if (block.meta !== undefined) parts.push(',"meta":', JSON.stringify(block.meta));
  parts.push('}');
  return parts.join('');
}
