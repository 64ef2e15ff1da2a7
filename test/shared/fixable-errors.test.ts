// Errors a user fixes are told by their brand, not by class or name: the CLI (main.ts, plain
// modules) must recognise the ones the bundle throws, whose classes are the bundle's own copies.
import t from 'tap';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ConfigError, FixableError, fixableLine } from '../../src/shared/errors.js';
import { PortInUseError } from '../../src/shared/port-in-use.js';
import { DataDirError } from '../../src/store/file-modes.js';
import { ROOT } from '../helpers/cli.js';

t.test('the line of each error a user fixes; null for any other', async (t) => {
  t.equal(
    fixableLine(new ConfigError('port', 'must be a whole number')),
    'configuration error: port: must be a whole number',
  );
  t.equal(fixableLine(new DataDirError('data dir /x is in use')), 'data dir /x is in use');
  t.equal(fixableLine(new PortInUseError('http port 5000 is in use')), 'http port 5000 is in use');
  t.equal(fixableLine(new FixableError('plain', '')), 'plain');
  t.equal(fixableLine(new Error('boom')), null);
  t.equal(fixableLine(Object.assign(new Error('named only'), { name: 'ConfigError' })), null, 'a name is not enough');
  for (const v of [null, undefined, 'text', 42]) t.equal(fixableLine(v), null, String(v));
});

t.test("the bundle's errors are other classes, and still recognised", async (t) => {
  const bundle = createRequire(import.meta.url)(
    path.join(ROOT, 'dist/bundle/app.cjs'),
  ) as typeof import('../../src/app.js');
  t.not(bundle.ConfigError, ConfigError, 'the bundle holds its own copy of the class');
  // A ConfigError thrown inside the bundle, by its own loadConfig.
  let thrown: unknown;
  try {
    bundle.loadConfig({ port: 'many' }, {});
  } catch (e) {
    thrown = e;
  }
  t.notOk(thrown instanceof ConfigError, 'instanceof fails across the copies');
  t.match(fixableLine(thrown), /^configuration error: port \(flag --port\): must be an integer/, 'the brand does not');
  // The e2e tests start the CLI, which runs the bundle: a busy port (test/e2e/port-in-use.test.ts)
  // and a busy data dir (test/e2e/data-dir-lock.test.ts) end in their one line and exit code 2.
});
