// Config files as people edit them by hand on a Pi: a slip in the JSON is named by its line and
// column (Node 20's parser gives only a byte position), and a file an editor saved with a
// byte-order mark (Windows Notepad does) is read by the service and by the failsafe alike.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';
import { makeGpioRoot, PI5_CHIPS } from '../drivers/gpio-fixtures.js';
import { ROOT } from '../helpers/root.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-hand-edited-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

t.test('a slip in the JSON is named by line and column', async (t) => {
  const p = file('slip.json', '{\n  "port": 5000,\n  "hardware": "sim",,\n  "serviceId": "fermenter"\n}\n');
  const err = t.throws(() => loadConfig({ config: p }, {})) as ConfigError;
  t.type(err, ConfigError);
  t.match(err.message, /is not valid JSON: .*line 3 column 21/, err.message);
  const cut = file('cut.json', '{\n  "port": 5000,\n  "hardware": "sim"\n');
  t.match((t.throws(() => loadConfig({ config: cut }, {})) as Error).message, /not valid JSON: .*line 4 column 1/);
});

const BOM = '\ufeff';
const GPIO = [{ name: 'heater', line: 17, direction: 'out', activeLow: true }];

t.test('a config file with a byte-order mark is read by the service and the failsafe', async (t) => {
  const p = file('bom.json', `${BOM}${JSON.stringify({ serviceId: 'fermenter', hardware: 'linux', gpio: GPIO })}`);
  // What a crash leaves: the active-low heater relay on (pin low). The failsafe releases it.
  const root = makeGpioRoot(PI5_CHIPS, { 588: '0' });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const run = spawnSync(
    process.execPath,
    [path.join(ROOT, 'dist/src/failsafe/index.js'), '--config', p, '--gpio-root', root],
    { encoding: 'utf8', env: { PATH: process.env.PATH } },
  );
  t.equal(run.status, 0, run.stderr);
  t.equal(readFileSync(path.join(root, 'gpio588', 'value'), 'utf8').trim(), '1', 'heater relay released');
  t.equal(loadConfig({ config: p }, {}).serviceId, 'fermenter', 'the service reads it');
});

t.test('a channel URL that is not one is named as such', async (t) => {
  const p = file('url.json', JSON.stringify({ alerts: { ntfy: { url: 'ntfy.sh/my-brewery' } } }));
  const err = t.throws(() => loadConfig({ config: p }, {})) as Error;
  t.match(
    err.message,
    /alerts\.ntfy\.url: must be an http:\/\/ or https:\/\/ URL, got "ntfy\.sh\/my-brewery"/,
    err.message,
  );
});

// Windows Notepad's "Unicode" is UTF-16 with a byte-order mark; decoded as UTF-8 it was a parse
// error quoting two U+FFFD and spaced-out letters, and a Latin-1 "Bière" a serviceId "Bi\uFFFDre".
t.test(
  'a config file that is not UTF-8 is named as such, with what to do, by the service and the failsafe',
  async (t) => {
    const text = JSON.stringify({ serviceId: 'fermenter', gpio: GPIO });
    const utf16 = path.join(dir, 'utf16.json');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const err = t.throws(() => loadConfig({ config: utf16 }, {})) as ConfigError;
    t.type(err, ConfigError);
    t.match(err.message, /^config: .*utf16\.json is UTF-16 text, not UTF-8: save or send it as UTF-8$/);
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/src/failsafe/index.js'), '--config', utf16], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    t.match(run.stderr.trim(), /^failsafe: config .*utf16\.json is UTF-16 text, not UTF-8: save or send it as UTF-8$/);

    const latin1 = path.join(dir, 'latin1.json');
    writeFileSync(latin1, Buffer.from('{"serviceId": "Bi\u00e8re"}', 'latin1'));
    const bad = t.throws(() => loadConfig({ config: latin1 }, {})) as ConfigError;
    t.match(bad.message, /^config: .*latin1\.json is not UTF-8 text \(Latin-1\?\): save or send it as UTF-8$/);
  },
);

// An empty file (an editor that crashed, `> config.json` by mistake) was "not valid JSON:
// Unexpected end of JSON input (line 1 column 1)", which says neither that it is empty nor what
// it should hold.
t.test('an empty config file is named as empty, with what to write in it', async (t) => {
  for (const [name, text] of [
    ['empty.json', ''],
    ['blank.json', '\n  \n'],
    ['bom-only.json', BOM],
  ]) {
    const err = t.throws(() => loadConfig({ config: file(name!, text!) }, {})) as ConfigError;
    t.match(
      err.message,
      new RegExp(`^config: .*${name} is empty: write a JSON object in it \\(\\{\\} for the defaults\\)$`),
    );
  }
});
