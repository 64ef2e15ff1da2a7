// DigitalInput: reads one IoArray channel (a switch, a float, a button). DIRECT follows the
// input, holding a short pulse active for at least minActiveTime; ALTERNATING toggles on each
// press, ignoring presses closer together than minActiveTime (debounce). Reference §5.5.
import { f } from '../codec/fields.js';
import { defineBlock } from '../runtime/types.js';
import { claimOwnChannel } from './shared/channel.js';
import { ToggleBehavior } from './shared/enums.js';
import { digitalStateOrNull } from './shared/fields.js';

const INTERVAL_MS = 20;

const fields = {
  hwDevice: f.link('IoArrayInterface', { stored: true }),
  channel: f.number({ stored: true, integer: true, min: 0, max: 64, description: '1-based channel; 0 = none' }),
  state: digitalStateOrNull({
    readonly: true,
    logged: true,
    description: 'after inversion and the toggle behavior; null when unknown',
  }),
  invert: f.bool({ stored: true }),
  behavior: f.enum(ToggleBehavior, { stored: true }),
  minActiveTime: f.duration({
    stored: true,
    description: 'DIRECT: shortest active pulse; ALTERNATING: shortest time between toggles',
  }),
  hwState: digitalStateOrNull({ readonly: true, description: 'the channel as read, before inversion' }),
};

interface InputState {
  lastActive: boolean | null;
  pulseEnd: number;
  toggled: boolean;
  lastToggle: number;
}

export const DigitalInput = defineBlock<typeof fields, InputState>({
  type: 'DigitalInput',
  role: 'sensor',
  fields,
  implements: ['DigitalInterface', 'IoClaimerInterface'],
  channelVia: 'IoArrayInterface',
  description: 'A digital input on one IoArray channel',
  init: () => ({ lastActive: null, pulseEnd: -Infinity, toggled: false, lastToggle: -Infinity }),
  onDelete(block, ctx) {
    ctx.afterCommit(() => ctx.releaseChannels(block));
  },
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    const now = ctx.now;
    const { io } = claimOwnChannel(block, ctx);
    const raw = io ? io.read(d.channel!) : null;
    d.hwState = raw === null ? null : raw ? 'STATE_ACTIVE' : 'STATE_INACTIVE';
    if (raw === null) {
      d.state = null;
      return now + INTERVAL_MS;
    }
    const active = raw !== d.invert;
    const rising = active && s.lastActive === false;
    const minActive = (d.minActiveTime ?? 0) * 1000;
    if (d.behavior === 'ALTERNATING') {
      if (rising && now - s.lastToggle >= minActive) {
        s.toggled = !s.toggled;
        s.lastToggle = now;
      }
      d.state = s.toggled ? 'STATE_ACTIVE' : 'STATE_INACTIVE';
    } else {
      if (rising || (active && s.lastActive === null)) s.pulseEnd = now + minActive;
      d.state = active || now < s.pulseEnd ? 'STATE_ACTIVE' : 'STATE_INACTIVE';
    }
    s.lastActive = active;
    return now + INTERVAL_MS;
  },
});
