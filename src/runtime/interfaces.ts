// The link interfaces: what a block that implements one offers the blocks linking to it, in its
// data and its volatile state. `ctx.resolve(id, iface)` returns the block typed by this map, and
// `defineBlock` refuses an `implements` entry the type's data or state does not satisfy, so a
// linked block is read without casts and a contract cannot be claimed without being kept.
import type { BalancerState } from '../blocks/shared/balancer-core.js';
import type { MutexToken } from '../blocks/shared/mutex-token.js';
import type { FilterChain } from '../blocks/shared/filter-chain.js';
import type { Driven, Tracking } from '../blocks/shared/pipeline.js';
import type { VariableValue } from '../blocks/variables.js';
import { implementsIface, type AnyBlock } from './types.js';

// Type aliases, not interfaces: a linked block must still pass where any block does (AnyBlock).
type Contract<D, S = unknown> = { data: D; state: S };
type IoChannel = { id: number | null; capabilities: number | null; claimedBy: string | null };
type GpioLine = { channel: number | null; name: string; line: number | null; direction: string };
type DigitalState = { state: string | null; desiredState?: string | null };
type ProcessValue = { setting: number | null; value: number | null };

export interface InterfaceMap {
  /** Any block at all (Sequence instructions that name a block of any type). */
  Any: Contract<Record<string, unknown>>;
  TempSensorInterface: Contract<{ value: number | null }>;
  ProcessValueInterface: Contract<ProcessValue>;
  /** The PID reads the derivative of the sensor value from the pair's filter. */
  SetpointSensorPairInterface: Contract<
    ProcessValue & { claimedBy: string | null },
    Driven<number> & { filter: FilterChain }
  >;
  /** The type itself: a SetpointProfile drives the pair's setting through its claim. */
  SetpointSensorPair: Contract<
    ProcessValue & { storedSetting: number | null; claimedBy: string | null },
    Driven<number>
  >;
  ActuatorAnalogInterface: Contract<
    ProcessValue & { claimedBy: string | null },
    Driven<number> & { tracking?: Tracking | null }
  >;
  DigitalInterface: Contract<DigitalState>;
  ActuatorDigitalInterface: Contract<
    DigitalState & {
      storedState: string;
      desiredState: string | null;
      claimedBy: string | null;
      constraints?: { mutexed?: { enabled: boolean; mutexId: string | null } };
    },
    Driven<string>
  >;
  EnablerInterface: Contract<{ enabled: boolean }>;
  ClaimableInterface: Contract<{ claimedBy: string | null }>;
  IoClaimerInterface: Contract<Record<string, unknown>>;
  IoArrayInterface: Contract<{ channels: IoChannel[]; lines?: GpioLine[] }>;
  DS2408Interface: Contract<{ channels: IoChannel[] }>;
  OneWireDeviceInterface: Contract<{ address: string }>;
  OneWireBusInterface: Contract<{ name: string }>;
  MutexInterface: Contract<Record<string, unknown>, MutexToken>;
  BalancerInterface: Contract<Record<string, unknown>, BalancerState>;
  Variables: Contract<{ variables: Record<string, VariableValue> }>;
  /** Sequence instructions that start or wait for a profile or another sequence. */
  SetpointProfile: Contract<{ enabled: boolean; start: number | null; points: Array<{ time: number | null }> }>;
  Sequence: Contract<{ enabled: boolean; status: string }>;
}

export type InterfaceName = keyof InterfaceMap;

/** A block resolved through `iface`: typed as the interface promises. */
export type Linked<I extends InterfaceName> = Omit<AnyBlock, 'data' | 'state'> & InterfaceMap[I];

/** The interfaces a type with data `D` and state `S` may claim (defineBlock's `implements`). */
export type ImplementableBy<D, S> = {
  [I in InterfaceName]: D extends InterfaceMap[I]['data'] ? (S extends InterfaceMap[I]['state'] ? I : never) : never;
}[InterfaceName];

/** Finds a linked block: typed as `iface` promises when it exists and implements `iface`, else null. */
export type Resolve = <I extends InterfaceName>(id: string | null | undefined, iface: I) => Linked<I> | null;

export function resolveIn(
  table: { byId(id: string): AnyBlock | undefined },
  id: string | null | undefined,
  iface: InterfaceName,
): Linked<InterfaceName> | null {
  const target = id ? table.byId(id) : undefined;
  // The one place a block is given its interface's type: defineBlock let the type claim `iface`
  // only if its data and state keep that interface's contract.
  return target && implementsIface(target.def, iface) ? (target as unknown as Linked<InterfaceName>) : null;
}
