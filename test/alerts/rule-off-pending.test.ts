// A rule turned off while a problem waits out its `after` (seen, not fired): nothing watches it
// while the rule is off, so its streak is dropped, as a disabled block's is (block-disabled.test.ts).
// Turned on again within resolveAfter, the wait starts over from the first bad check, instead of
// firing at once with the time before (and while) the rule was off counted toward the `after`.
// Whether the rule is turned off globally, in the block's own alert settings, or (an output's "on
// too long") by its time set to 0; and a global rule not of a block (hardware: a board missing).
import t from 'tap';
import { heaterOnRelayBoard, simApp } from '../hardware/sim-app.js';
import { activeOf, app, BAND_RULES, outOfBand, waitStartsOver } from './pending-wait.js';

const SIM = {
  plant: { ambient: 18, initial: { beer: 18, air: 18 } },
  i2cIo: [{ name: 'relays', type: 'MCP23017', address: '0x20', activeLow: true, outputs: { '1': 'heater' } }],
};

for (const [how, off] of [
  [
    'globally',
    { resolveAfter: 60, setpointBand: { enabled: false }, blocks: { 'Beer Setpoint': { after: 10, band: 2 } } },
  ],
  [
    "in the block's own alert settings",
    { resolveAfter: 60, blocks: { 'Beer Setpoint': { after: 10, band: 2, enabled: false } } },
  ],
] as const) {
  t.test(`a setpoint band rule turned off ${how} before its alert fired: on again, the wait starts over`, async (t) => {
    const running = await outOfBand(t);
    running.rt.app.alerts.setRules(off);
    await waitStartsOver(t, running, () => running.rt.app.alerts.setRules(BAND_RULES));
  });
}

t.test("an output's on-too-long time set to 0 before its alert fired: set again, the wait starts over", async (t) => {
  const { rt, timers } = await app(t);
  await rt.post('blocks/create', { id: 'pins', type: 'MockPins', data: {} });
  const made = await rt.post('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'pins', channel: 1, storedState: 'STATE_ACTIVE' },
  });
  const key = `output-on:${made.body.nid}`;
  rt.app.alerts.setRules({ resolveAfter: 60, blocks: { Heater: { onAfter: 10 } } });
  await timers.advance(8000);
  t.same(activeOf(rt, key), [], 'on for 8 s of 10: no alert yet');
  rt.app.alerts.setRules({ resolveAfter: 60, blocks: { Heater: { onAfter: 0 } } });
  await timers.advance(30_000);
  t.same(activeOf(rt, key), [], 'time 0: none');
  rt.app.alerts.setRules({ resolveAfter: 60, blocks: { Heater: { onAfter: 10 } } });
  await timers.advance(3000);
  t.same(activeOf(rt, key), [], 'set again: not at once, the time before is not counted');
  await timers.advance(9000);
  t.equal(activeOf(rt, key).length, 1, 'fires once on for its 10 s since set again');
});

t.test('the hardware rule turned off before a missing board fired: on again, the wait starts over', async (t) => {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  const { alerts } = s.app;
  const checking = async (ms: number) => {
    for (let done = 0; done < ms; done += 1000) {
      await s.run(1000);
      alerts.evaluate();
    }
  };
  const on = { resolveAfter: 60, hardware: { after: 10 } };
  alerts.setRules(on);
  await heaterOnRelayBoard(s);
  await checking(2000);
  const missing = () => alerts.active().filter((a) => a.kind === 'device-missing');
  s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'relays')!.chip.plugged = false;
  await checking(7000);
  t.same(missing(), [], 'not answering for 7 s of 10: no alert yet');
  alerts.setRules({ resolveAfter: 60, hardware: { enabled: false, after: 10 } });
  await checking(20_000);
  t.same(missing(), [], 'turned off: none');
  alerts.setRules(on);
  await checking(3000);
  t.same(missing(), [], 'on again: not at once, the 7 s before are not counted');
  await checking(10_000);
  t.equal(missing().length, 1, 'fires once missing for its 10 s since turned on');
});
