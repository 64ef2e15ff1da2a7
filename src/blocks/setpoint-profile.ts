// SetpointProfile: drives a setpoint along points in time from a wall-clock start, holding the
// first temperature until its point and the last one after the end. Without a valid wall clock
// it pauses at the place of the last time seen (the one saved before a start on a clock not set)
// until the time is known again. Reference §5.2.
// Its place is the time since `start` as the controller counts it: a wall-clock jump moves
// `start` by as much (the place stays), and so does the time the service was stopped, for a
// profile that was running (it resumes where it was). A `start` written must be a date on a set
// clock (checkData): one on a clock never set (1970) would put the profile 56 years in once NTP
// sets the clock. docs/blocks.md, "Profiles and the clock".
import { isoSeconds } from '../codec/encode.js';
import { f } from '../codec/fields.js';
import { absoluteProfilePoints, legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock, wallForProgress } from '../runtime/types.js';
import { EARLIEST_WALL_MS, isWallSet } from '../shared/wall-set.js';
import { drive } from './shared/pipeline.js';
import { nextBeat } from './shared/cadence.js';
import { profileSetting } from './shared/profile.js';

const fields = {
  points: f.array(
    f.object({
      time: f.duration({ stored: true, description: 'offset from the start' }),
      temperature: f.setpointTemp({ stored: true }),
    }),
    { stored: true, maxItems: 100 },
  ),
  enabled: f.bool({ stored: true, default: true }),
  targetId: f.link('SetpointSensorPair', { stored: true, drives: true }),
  setting: f.temp({ readonly: true, logged: true }),
  start: f.datetime({ stored: true }),
};

const legacyNames: LegacyTable = {
  points: absoluteProfilePoints,
  drivenTargetId: legacy.ignore('older firmware: read-only link to the driven setpoint'),
  interpolateDisabled: legacy.unsupported('step profiles (no interpolation)'),
};

export const SetpointProfile = defineBlock<typeof fields, undefined>({
  type: 'SetpointProfile',
  role: 'setpoint',
  fields,
  legacy: legacyNames,
  implements: ['EnablerInterface'],
  description: 'A temperature profile over time, driving a setpoint',
  checkData(data, _resolve, { self }) {
    // REST, MQTT, the dashboard and a backup load alike. A start stored before is left alone.
    const start = data.start as number | null;
    if (start === null || start === self?.data.start || isWallSet(start * 1000)) return [];
    return [
      {
        path: 'data.start',
        message: `${isoSeconds(start)} is before ${isoSeconds(EARLIEST_WALL_MS / 1000).slice(0, 10)}: a time on a clock that was never set (a controller before network time reads 1970). Write the date on a set clock (the profile waits for the controller's clock to be set), or null for no start`,
      },
    ];
  },
  wallMoved(block, move) {
    const d = block.data;
    if (d.start === null) return false;
    // Across a stop only a running profile pauses; one set to start later keeps its date.
    if (move.reason === 'restart' && (!d.enabled || move.wall === null || d.start * 1000 > move.wall - move.byMs))
      return false;
    d.start += Math.round(move.byMs / 1000);
    return true;
  },
  // As update: it claims its target once started, with a setting to give it, at the same time.
  drivesNow(block, wall) {
    const d = block.data;
    return (
      wall !== null &&
      d.start !== null &&
      wall / 1000 >= d.start &&
      profileSetting(d.points, wall / 1000 - d.start) !== null
    );
  },
  update(block, ctx) {
    const d = block.data;
    const next = nextBeat(ctx.now, 1000);
    const target = ctx.resolve(d.targetId, 'SetpointSensorPair');
    if (!d.enabled) {
      d.setting = null;
      if (target) ctx.wake(target);
      return next;
    }
    // Paused without a wall clock: held at the place of the last time seen (after a start on a
    // clock not set, the time the service last saw), or as it was when no time was ever seen.
    const wall = wallForProgress(ctx);
    if (wall === null) return next;
    if (d.start === null || wall / 1000 < d.start) {
      d.setting = null;
      return next;
    }
    d.setting = profileSetting(d.points, wall / 1000 - d.start);
    if (target && d.setting !== null) drive(ctx, target, block, d.setting);
    return next;
  },
});
