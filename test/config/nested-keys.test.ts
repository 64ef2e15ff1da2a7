// Nested config objects are checked like the top level (issue 14.1): a typo such as `activelow`
// in a gpio entry would otherwise drive a relay board inverted.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closestName, editDistance } from '../../drivers/closest-name.js';
import { parseGpioLineConfigs } from '../../drivers/gpio/line-config.js';
import { parseSimConfig } from '../../drivers/sim/sim-config.js';
import { ConfigError, loadConfig } from '../../src/config.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-nested-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const withFile = (json: unknown) => {
  const p = path.join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(p, JSON.stringify(json));
  return loadConfig({ config: p }, {});
};

t.test('edit distance and the closest known name', async (t) => {
  t.equal(editDistance('kitten', 'sitting'), 3);
  t.equal(editDistance('', 'abc'), 3);
  t.equal(editDistance('same', 'same'), 0);
  t.equal(
    closestName('activelow', ['name', 'line', 'direction', 'activeLow', 'safeState']),
    'activeLow',
    'a case slip',
  );
  t.equal(closestName('safestate', ['activeLow', 'safeState']), 'safeState');
  t.equal(closestName('drection', ['name', 'line', 'direction']), 'direction', 'a missing letter');
  t.equal(closestName('prot', ['port', 'host', 'httpsPort']), 'port', 'swapped letters');
  t.equal(closestName('colour', ['port', 'host']), undefined, 'nothing near');
});

t.test('gpio entries: an unknown key names its path and the closest key', async (t) => {
  const entry = { name: 'heater', line: 17, direction: 'out', activelow: true };
  t.throws(
    () => withFile({ gpio: [{ name: 'fan', line: 4 }, entry] }),
    new ConfigError(
      'gpio[1].activelow',
      'unknown key; did you mean "activeLow"? known: name, line, direction, activeLow, safeState',
    ),
  );
  const ok = withFile({ gpio: [{ name: 'heater', line: 17, direction: 'out', activeLow: true }] });
  t.same(
    ok.gpio,
    [{ name: 'heater', line: 17, direction: 'out', activeLow: true, safeState: false }],
    'the right spelling still works',
  );
});

t.test('the failsafe command reads gpio entries the same way', async (t) => {
  const { lines, errors } = parseGpioLineConfigs([{ name: 'heater', line: 17, direction: 'out', activelow: true }]);
  t.same(lines, []);
  t.same(
    errors,
    ['gpio[0].activelow: unknown key; did you mean "activeLow"? known: name, line, direction, activeLow, safeState'],
    "the service's words",
  );
});

t.test('serialPorts and i2cBuses: each entry is checked and named by index', async (t) => {
  t.throws(() => withFile({ serialPorts: ['/dev/ttyUSB0', { path: '/dev/ttyUSB1' }] }), {
    key: 'serialPorts[1]',
    message: /must be a non-empty string/,
  });
  t.throws(() => withFile({ i2cBuses: [''] }), { key: 'i2cBuses[0]', message: /must be a non-empty string/ });
  t.same(withFile({ i2cBuses: ['/dev/i2c-1'] }).i2cBuses, ['/dev/i2c-1']);
});

t.test('top level: an unknown key names the closest known key', async (t) => {
  t.throws(() => withFile({ emitIntervall: 1000 }), {
    key: 'emitIntervall',
    message: /unknown key; did you mean "emitInterval"\?/,
  });
});

t.test('sim config and plant: unknown keys name the closest known key', async (t) => {
  t.throws(() => parseSimConfig({ gpio: [{ name: 'heater', line: 17, activelow: true }] }), {
    message: /^sim\.gpio\[0\]\.activelow is not a setting: unknown key; did you mean "activeLow"\?/,
  });
  t.throws(() => parseSimConfig({ ds2480b: [{ pty: true, devics: [] }] }), {
    message: /sim\.ds2480b\[0\]\.devics .*did you mean "devices"\?/,
  });
  t.throws(() => parseSimConfig({ plant: { heater: { power: 100 } } }), {
    message: /plant\.heater\.power is not a plant setting: unknown key; did you mean "powerW"\?/,
  });
});
