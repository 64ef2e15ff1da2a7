// `npm run build` bundles the service's modules into dist/bundle, and the CLI starts from it
// (a few files to read instead of some 600); a bundle older than dist/src is never used.
// tags: slow (the CLI started from bundles)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import t from 'tap';
import { CLI, ROOT, postJson, startCli } from '../helpers/cli.js';

const bundle = path.join(ROOT, 'dist/bundle/app.cjs');

t.test('the build made a bundle no older than the modules it holds', async (t) => {
  const plain = path.join(ROOT, 'dist/src/app.js');
  t.ok(statSync(bundle).mtimeMs >= statSync(plain).mtimeMs, 'dist/bundle/app.cjs is not older than dist/src/app.js');
});

t.test('the CLI runs from the bundle, and it serves the API and the page', async (t) => {
  const cli = await startCli(
    ['--hardware', 'sim', '--mqtt-port', '0', '--log-level', 'debug', '--data-dir', t.testdir()],
    {},
    t,
  );
  t.teardown(() => void cli.child.kill('SIGKILL'));
  t.match(cli.output(), /service modules: dist\/bundle/, `${path.relative(ROOT, CLI)} loaded dist/bundle`);
  const created = await postJson(`${cli.base}/edge-one/blocks/create`, {
    id: 'Bundled',
    type: 'TempSensorMock',
    data: { setting: 21 },
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.equal(created.body.data.value.value, 21);
  const page = await fetch(`${cli.base}/`);
  t.equal(page.status, 200);
  t.match(await page.text(), '<div id="app"', 'the dashboard is served (its files are found from the bundle)');
  const docs = await fetch(`${cli.base}/edge-one/api/doc/json`);
  t.equal(docs.status, 200, 'Swagger (loaded lazily, outside the bundle) answers');
});

t.test('no import() in the bundle: from a code cache V8 runs it without its callback', async (t) => {
  const dir = path.dirname(bundle);
  const found = readdirSync(dir)
    .filter((f) => f.endsWith('.cjs'))
    .flatMap((f) =>
      [...readFileSync(path.join(dir, f), 'utf8').matchAll(/.{0,40}\bimport\(.{0,40}/g)].map((m) => `${f}: ${m[0]}`),
    );
  t.same(found, [], 'dynamic imports are require() calls (dynamicImportInCjs: false)');
});

t.test('the rule that keeps the bundle safe: never older than the module it was made from', async (t) => {
  const { pickAppModule } = await import('../../src/service/app-module.js');
  const { utimesSync, writeFileSync } = await import('node:fs');
  const dir = t.testdir({ 'app.js': '', 'bundle.js': '' });
  const plain = new URL(`file://${path.join(dir, 'app.js')}`);
  const bundled = new URL(`file://${path.join(dir, 'bundle.js')}`);
  utimesSync(bundled, 2000, 2000);
  utimesSync(plain, 1000, 1000);
  t.equal(pickAppModule(plain, bundled, {}), bundled.href, 'a bundle newer than the modules is used');
  utimesSync(plain, 3000, 3000);
  t.equal(pickAppModule(plain, bundled, {}), plain.href, 'a tsc after the bundle: the plain modules');
  utimesSync(plain, 1000, 1000);
  t.equal(
    pickAppModule(plain, bundled, { EDGEBLOCKS_MODULES: 'plain' }),
    plain.href,
    'EDGEBLOCKS_MODULES=plain asks for the plain modules',
  );
  writeFileSync(path.join(dir, 'gone.txt'), '');
  t.equal(
    pickAppModule(plain, new URL(`file://${path.join(dir, 'missing.js')}`), {}),
    plain.href,
    'no bundle: the plain modules',
  );
});

t.test(
  'a start reads its configuration from the bundle too: no plain module but the entry and its four helpers',
  async (t) => {
    const dir = t.testdir({
      'record.mjs': "import { register } from 'node:module';\nregister(new URL('./resolve.mjs', import.meta.url));\n",
      'resolve.mjs':
        "import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const r = await next(specifier, context);\n  appendFileSync(process.env.RECORD_MODULES, r.url + '\\n');\n  return r;\n}\n",
    });
    const record = path.join(dir, 'modules.txt');
    const cli = await startCli(
      ['--hardware', 'sim', '--mqtt-port', '0', '--log-level', 'debug', '--data-dir', path.join(dir, 'data')],
      { NODE_OPTIONS: `--import=${path.join(dir, 'record.mjs')}`, RECORD_MODULES: record },
      t,
    );
    t.teardown(() => void cli.child.kill('SIGKILL'));
    const loaded = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .filter((u) => u.startsWith('file:'))
      .map((u) => path.relative(ROOT, fileURLToPath(u)));
    // The bundle is compiled as scripts (code-cache.ts), so the import hook does not see it; the log says which ran.
    t.match(cli.output(), /service modules: dist\/bundle/, 'the app and its configuration from dist/bundle');
    t.same(
      loaded.filter((f) => f.startsWith('dist/src/')).sort(),
      [
        'dist/src/main.js',
        'dist/src/service/app-module.js',
        'dist/src/service/code-cache.js',
        'dist/src/service/notify.js',
        'dist/src/shared/version.js',
      ],
      'of dist/src only the entry and what it imports itself',
    );
    t.same(
      loaded.filter((f) => f.includes('node_modules/@sinclair/')),
      [],
      "TypeBox's modules are not read from node_modules (the bundle has them)",
    );
  },
);

t.test(
  "the idle bench's floor (the service's packages with nothing of its own) bundles as the service does, and serves",
  async (t) => {
    const { bundleCommonJs } = await import('../../scripts/bundle.js');
    const { spawn } = await import('node:child_process');
    const { freePort } = await import('../../scripts/bench/procs.js');
    const dir = path.join(ROOT, 'dist/bench-floor-test');
    t.teardown(async () => (await import('node:fs')).rmSync(dir, { recursive: true, force: true }));
    await bundleCommonJs({ floor: path.join(ROOT, 'dist/scripts/bench/floor-idle.js') }, dir);
    t.same(
      readdirSync(dir),
      ['floor.cjs'],
      'one file: the packages it imports are in it, better-sqlite3 stays outside',
    );
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(dir, 'floor.cjs'), String(port), t.testdir()], {
      stdio: 'ignore',
    });
    t.teardown(() => void child.kill('SIGKILL'));
    let answer: Response | null = null;
    for (let i = 0; i < 500 && !answer; i++) {
      answer = await fetch(`http://127.0.0.1:${port}/ping`, { method: 'POST' }).catch(() => null);
      if (!answer) await new Promise((r) => setTimeout(r, 20));
    }
    t.equal(answer?.status, 200, 'it answers');
    t.same(await answer?.json(), { ok: true }, 'through TypeBox');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const stopped = await Promise.race([
      exited,
      new Promise((r) => setTimeout(r, 10_000, 'still running after 10 s').unref()),
    ]);
    t.equal(stopped, 0, 'SIGTERM stops it');
  },
);
