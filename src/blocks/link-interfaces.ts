// The link interfaces of the block types: what a block that implements one offers the blocks
// linking to it, in its data and its volatile state (see src/runtime/interfaces.ts for how
// `ctx.resolve` and `defineBlock` use them). A new interface is one entry here.
import type { Contract } from '../runtime/interfaces.js';
import type { BalancerState } from './shared/balancer-core.js';
import type { MutexToken } from './shared/mutex-token.js';
import type { FilterChain } from './shared/filter-chain.js';
import type { Driven, Tracking } from './shared/pipeline.js';
import type { VariableValue } from './variables.js';
import type { PidData, PidVolatile } from './shared/autotune/pid-state.js';

type IoChannel = { id: number | null; capabilities: number | null; claimedBy: string | null };
type GpioLine = { channel: number | null; name: string; line: number | null; direction: string };
type DigitalState = { state: string | null; desiredState?: string | null };
type ProcessValue = { setting: number | null; value: number | null };

declare module '../runtime/interfaces.js' {
  interface InterfaceMap {
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
    /** The type itself: a PID tuned together with its pair (heat/cool on one setpoint). */
    Pid: Contract<PidData, PidVolatile>;
  }
}
