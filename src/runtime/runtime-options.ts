// What a block runtime (runtime.ts) is made with, and the events it emits.
import type { UnitPrefs } from '../codec/units.js';
import type { Logger } from '../log.js';
import type { Clock, ClockJump } from './clock.js';
import type { BackupStore, ChangeEvent } from './core.js';
import type { Discoverer } from './discover.js';
import type { Hardware } from './hardware.js';
import type { BlockPersistence } from './persistence.js';
import type { BlockTypeDef } from './types.js';

export interface RuntimeOptions {
  serviceId: string;
  version: string;
  types: BlockTypeDef<any, any>[];
  clock: Clock;
  persistence: BlockPersistence;
  units?: () => UnitPrefs;
  hardware?: Hardware;
  log?: Logger;
  discoverers?: Discoverer[];
  backupStore?: BackupStore;
}

/** The runtime's events. `clockSet`: the wall clock reads valid (epoch ms) after reading not set (a Pi booted at 1970). */
export type RuntimeEvents = { change: [ChangeEvent]; tick: [number]; clockJump: [ClockJump]; clockSet: [number] };
