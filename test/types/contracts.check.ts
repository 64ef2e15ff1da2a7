// Compiled (never run) by test/runtime/contracts.test.ts: each @ts-expect-error line must be a
// type error, so a contract that stops being checked fails that test.
import { Sequence } from '../../src/blocks/sequence.js';
import { SetpointProfile } from '../../src/blocks/setpoint-profile.js';
import { SetpointSensorPair } from '../../src/blocks/setpoint-sensor-pair.js';
import { Variables } from '../../src/blocks/variables.js';
import { f, type DataOf, type FieldTable } from '../../src/codec/fields.js';
import type { Hardware } from '../../src/runtime/hardware.js';
import type { InterfaceMap } from '../../src/runtime/interfaces.js';
import { defineBlock, type BlockTypeDef, type UpdateContext } from '../../src/runtime/types.js';

declare const ctx: UpdateContext;
declare const hardware: Hardware;

const sensor = ctx.resolve('beer', 'TempSensorInterface');
export const reading: number | null | undefined = sensor?.data.value;
// @ts-expect-error a temperature sensor promises no setting
export const setting = sensor?.data.setting;
// @ts-expect-error no interface has this name
ctx.resolve('beer', 'TempSensorInterfac');
const pair = ctx.resolve('fridge', 'SetpointSensorPairInterface');
export const derivative = pair?.state.filter.derivative('FILTER_15s');

export const Good = defineBlock({
  type: 'Good',
  role: 'sensor',
  fields: { value: f.temp({ readonly: true }) },
  implements: ['TempSensorInterface'],
});
// @ts-expect-error a type cannot claim TempSensorInterface without a value
// biome-ignore format: @ts-expect-error needs the whole call on the next line
export const Bad = defineBlock({ type: 'Bad', role: 'sensor', fields: { other: f.number() }, implements: ['TempSensorInterface'] });
// @ts-expect-error a type cannot claim an interface whose state it does not keep (a Mutex token)
// biome-ignore format: @ts-expect-error needs the whole call on the next line
export const BadMutex = defineBlock({ type: 'BadMutex', role: 'controller', fields: {}, implements: ['MutexInterface'] });
// @ts-expect-error every type declares its role
export const NoRole = defineBlock({ type: 'NoRole', fields: {}, implements: [] });

export const bus = hardware.services.onewire?.buses();
// @ts-expect-error hardware services are named, not looked up by any string
export const unknownService = hardware.services.i2c;

// A type's own name is an interface it implements without listing it: it keeps that contract.
type Kept<T> = T extends BlockTypeDef<infer F extends FieldTable, infer S> ? { data: DataOf<F>; state: S } : never;
declare const kept: {
  pair: Kept<typeof SetpointSensorPair>;
  profile: Kept<typeof SetpointProfile>;
  sequence: Kept<typeof Sequence>;
  variables: Kept<typeof Variables>;
};
export const ownNames: [
  InterfaceMap['SetpointSensorPair'],
  InterfaceMap['SetpointProfile'],
  InterfaceMap['Sequence'],
  InterfaceMap['Variables'],
] = [kept.pair, kept.profile, kept.sequence, kept.variables];
// @ts-expect-error a profile does not keep the setpoint pair's contract
export const notAPair: InterfaceMap['SetpointSensorPair'] = kept.profile;
