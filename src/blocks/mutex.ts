// Mutex: a token shared by mutexed digital actuators, so that at most one of them is on (and
// the holder keeps it for its extraHoldTime after switching off). Reference §5.6, §6.5.
import { f } from '../codec/fields.js';
import { legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock } from '../runtime/types.js';
import { holdsMutexConstraint } from './digital-actuator.js';
import { holdRemaining, newToken, type MutexToken } from './shared/mutex-token.js';
import { nextBeat } from './shared/cadence.js';

const fields = {
  waitRemaining: f.duration({ readonly: true, default: 0, description: 'how long the current holder keeps the lock' }),
};

const legacyNames: LegacyTable = {
  differentActuatorWait: legacy.ignore(
    'older firmware: the hold time now belongs to each mutexed constraint (extraHoldTime)',
  ),
};

export const Mutex = defineBlock<typeof fields, MutexToken>({
  type: 'Mutex',
  role: 'controller',
  fields,
  legacy: legacyNames,
  implements: ['MutexInterface'],
  description: 'Lets at most one mutexed digital actuator be on',
  init: () => newToken(),
  update(block, ctx) {
    const t = block.state;
    // A holder that was deleted or whose constraint no longer names this mutex lets go.
    if (t.holder !== null && !holdsMutexConstraint(ctx.resolve(t.holder, 'ActuatorDigitalInterface'), block.id))
      t.holder = null;
    block.data.waitRemaining = holdRemaining(t, ctx.now) / 1000;
    return nextBeat(ctx.now, 1000);
  },
});
