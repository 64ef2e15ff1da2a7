// What the tests of a problem still waiting out its `after` share (block-disabled, rule-off-pending):
// an app on manual time, and a setpoint 8 degrees out of band for 8 s of a 10 s `after`, then
// unwatched (its block or control disabled, its rule turned off) and watched again. Not a test file itself.
import type { Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { ManualTimers } from '../helpers/manual-timers.js';

type Teardown = { teardown(fn: () => unknown): void };

export async function app(t: Teardown): Promise<{ rt: RunningApp; timers: ManualTimers }> {
  const clock = new ManualClock(1000);
  const timers = new ManualTimers(clock);
  const rt = await startApp({ hardware: 'sim' }, { clock, timers });
  t.teardown(() => rt.close());
  return { rt, timers };
}

export const activeOf = (rt: RunningApp, key: string) => rt.app.alerts.active().filter((a) => a.key === key);

/** The band rules of the setpoint: band 2, after 10 s. */
export const BAND_RULES = { resolveAfter: 60, blocks: { 'Beer Setpoint': { after: 10, band: 2 } } };

/** 'Beer Setpoint' at 20 on a sensor 'Beer' at 12; the key of its band alert. */
export async function beerSetpointAt12(rt: RunningApp): Promise<string> {
  await rt.post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: { setting: 12 } });
  const made = await rt.post('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: { __objtype: 'Link', id: 'Beer' }, storedSetting: 20, filter: 'FILTER_NONE' },
  });
  return `setpoint-band:${made.body.nid}`;
}

/** A setpoint 8 degrees out of band under BAND_RULES for 8 s: its alert waits out its `after`. */
export async function outOfBand(t: Test): Promise<{ rt: RunningApp; timers: ManualTimers; key: string }> {
  const { rt, timers } = await app(t);
  const key = await beerSetpointAt12(rt);
  rt.app.alerts.setRules(BAND_RULES);
  await timers.advance(8000);
  t.same(activeOf(rt, key), [], 'out of band for 8 s of 10: no alert yet');
  return { rt, timers, key };
}

/**
 * Unwatched for 30 s, then `watchAgain`: no alert meanwhile, none at once after (the 8 s before are
 * not counted), and one once out of band for its 10 s since.
 */
export async function waitStartsOver(
  t: Test,
  { rt, timers, key }: { rt: RunningApp; timers: ManualTimers; key: string },
  watchAgain: () => Promise<unknown> | unknown,
): Promise<void> {
  await timers.advance(30_000);
  t.same(activeOf(rt, key), [], 'not watched: none');
  await watchAgain();
  await timers.advance(3000);
  t.same(activeOf(rt, key), [], 'watched again: not at once, the 8 s before are not counted');
  await timers.advance(9000);
  t.equal(activeOf(rt, key).length, 1, 'fires once out of band for its 10 s since watched again');
}
