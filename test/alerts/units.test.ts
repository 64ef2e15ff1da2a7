// Alert texts show temperatures in the user's unit, converted by the codec (src/codec/units.ts):
// a setpoint pair out of its band names its value, setting and band in °C or °F.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Conditions } from '../../src/alerts/conditions.js';
import { effectiveRules } from '../../src/alerts/rules.js';
import { formatQuantity } from '../../src/codec/units.js';
import { testRuntime } from '../helpers/runtime.js';
import { healthySources } from './sources.js';

t.test('formatQuantity: the preferred unit, its symbol, the digits asked for', async (t) => {
  const c = { temperature: 'degC' } as const;
  const f = { temperature: 'degF' } as const;
  t.equal(formatQuantity(19.5, 'temp', c), '19.5 °C');
  t.equal(formatQuantity(19.5, 'temp', f), '67.1 °F');
  t.equal(formatQuantity(-40, 'temp', f), '-40.0 °F');
  t.equal(formatQuantity(100, 'temp', f, 0), '212 °F');
  t.equal(formatQuantity(1, 'deltaTemp', c), '1.0 °C');
  t.equal(formatQuantity(1, 'deltaTemp', f), '1.8 °F', 'a difference has no offset');
  t.equal(formatQuantity(90, 'duration', f, 0), '90 s');
});

t.test('the out-of-band alert text in the unit preference', async (t) => {
  const { runtime, clock, units } = testRuntime();
  runtime.create({ id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 19.5 } });
  runtime.create({
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 18, 'sensorId<>': 'Beer Sensor' },
  });
  clock.advance(3000);
  runtime.tick();
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alert-units-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const conditions = new Conditions(healthySources(runtime, dir));
  const rules = effectiveRules({ setpointBand: { band: 1, after: 1 } }, null);
  const band = () => conditions.evaluate(rules).seen.find((o) => o.kind === 'setpoint-band')?.text;
  t.match(
    band(),
    /^Beer Setpoint is 19\.5 °C, setting 18\.0 °C: further than 1\.0 °C and not getting closer for more than 1 s$/,
  );
  units.temperature = 'degF';
  t.match(
    band(),
    /^Beer Setpoint is 67\.1 °F, setting 64\.4 °F: further than 1\.8 °F and not getting closer for more than 1 s$/,
  );
});
