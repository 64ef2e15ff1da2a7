// The bundle's code cache (src/service/code-cache.ts): where it lives, that a start uses it, and
// that a damaged, foreign or stale cache is never run but made again.
// tags: slow (the CLI started several times)
import { chmodSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import t, { type Test } from 'tap';
import { cacheDirectory, loadCommonJs } from '../../src/service/code-cache.js';
import { postJson, startCli } from '../helpers/cli.js';

const BUNDLE = {
  'app.cjs':
    "const a = require('./chunk-a.cjs');\nexports.sum = a.add(2, 3);\nexports.kind = () => import('node:path').then((m) => typeof m.join);\n",
  'chunk-a.cjs': 'exports.add = (x, y) => x + y;\n',
};

function bundle(t: Test): { entry: string; cache: string } {
  const dir = t.testdir({ bundle: BUNDLE, cache: {} });
  return { entry: path.join(dir, 'bundle', 'app.cjs'), cache: path.join(dir, 'cache') };
}

function load(entry: string, dir: string) {
  const loaded = loadCommonJs(entry, { dir });
  return { ...loaded, exports: loaded.exports as { sum: number; kind: () => Promise<string> } };
}

t.test(
  'the directory: Node’s variables first, then systemd’s, then the user’s cache; never one others can write',
  async (t) => {
    const dir = t.testdir({ node: {}, systemd: {}, xdg: {}, home: {}, open: {} });
    t.same(cacheDirectory({ NODE_DISABLE_COMPILE_CACHE: '1', NODE_COMPILE_CACHE: path.join(dir, 'node') }, dir), {
      off: 'NODE_DISABLE_COMPILE_CACHE is set',
    });
    t.same(
      cacheDirectory({ NODE_COMPILE_CACHE: path.join(dir, 'node'), CACHE_DIRECTORY: path.join(dir, 'systemd') }, dir),
      { dir: path.join(dir, 'node') },
    );
    t.same(cacheDirectory({ CACHE_DIRECTORY: `${path.join(dir, 'systemd')}:/elsewhere` }, dir), {
      dir: path.join(dir, 'systemd'),
    });
    t.same(cacheDirectory({ XDG_CACHE_HOME: path.join(dir, 'xdg') }, dir), {
      dir: path.join(dir, 'xdg', 'edgeblocks'),
    });
    t.same(cacheDirectory({}, path.join(dir, 'home')), { dir: path.join(dir, 'home', '.cache', 'edgeblocks') });
    t.match(
      cacheDirectory({}, ''),
      { off: /no cache directory/ },
      'no home (a user without a passwd entry): no cache, and the start goes on',
    );
    t.equal(statSync(path.join(dir, 'home', '.cache', 'edgeblocks')).mode & 0o777, 0o700, 'made private');
    chmodSync(path.join(dir, 'open'), 0o777);
    const open = cacheDirectory({ NODE_COMPILE_CACHE: path.join(dir, 'open') }, dir);
    t.match(open, { off: /writable by others/ }, 'a directory others can write is not used: what is in it would run');
    const file = path.join(dir, 'node', 'file');
    writeFileSync(file, '');
    t.match(cacheDirectory({ NODE_COMPILE_CACHE: file }, dir), { off: /not a directory|EEXIST|ENOTDIR/ });
  },
);

t.test('the first load makes the cache, the next uses it, and both run the same code', async (t) => {
  const { entry, cache } = bundle(t);
  const first = load(entry, cache);
  t.equal(first.cache, 'none');
  t.equal(first.exports.sum, 5, 'the entry ran, with its chunk');
  t.equal(await first.exports.kind(), 'function', 'import() inside the bundle resolves as in the main context');
  const saved = first.save();
  t.ok(saved.ok, saved.message);
  t.match(saved.message, /code cache of 2 file\(s\) written/);
  const files = readdirSync(path.join(cache, readdirSync(cache)[0]!)).sort();
  t.same(files, ['app.cjs.v8cache', 'chunk-a.cjs.v8cache'], 'one file per script');
  const second = load(entry, cache);
  t.equal(second.cache, 'used', 'V8 took the cache');
  t.equal(second.exports.sum, 5);
  t.equal(second.save().message, 'code cache in use', 'nothing written again');
});

t.test('a damaged cache is not run: a flipped bit, a short file, data V8 refuses', async (t) => {
  const { entry, cache } = bundle(t);
  load(entry, cache).save();
  const sub = path.join(cache, readdirSync(cache)[0]!);
  const chunkCache = path.join(sub, 'chunk-a.cjs.v8cache');
  const good = readFileSync(chunkCache);

  const flipped = Buffer.from(good);
  flipped[flipped.length >> 1]! ^= 0x10;
  writeFileSync(chunkCache, flipped);
  const afterFlip = load(entry, cache);
  t.equal(afterFlip.cache, 'corrupt', 'the checksum caught the flipped bit');
  t.equal(afterFlip.exports.sum, 5, 'and the code was compiled from the source');
  t.ok(afterFlip.save().ok);
  t.equal(load(entry, cache).cache, 'used', 'made again');

  writeFileSync(chunkCache, good.subarray(0, 3));
  t.equal(load(entry, cache).cache, 'corrupt', 'a file cut short');

  // V8 keeps what this process compiled and would not look at the cache again: each case below
  // runs a chunk source this process has not seen.
  const chunk = path.join(path.dirname(entry), 'chunk-a.cjs');
  writeFileSync(chunkCache, good);
  writeFileSync(chunk, 'exports.add = (x, y) => y + x; // edited after the cache was made\n');
  const edited = load(entry, cache);
  t.equal(edited.cache, 'rejected', 'V8 refused a cache made from another source');
  t.equal(edited.exports.sum, 5);

  writeFileSync(chunk, 'exports.add = (x, y) => x + y + 0; // a source never compiled here\n');
  const junk = Buffer.from('not what V8 makes, with a right checksum');
  const foreign = Buffer.alloc(junk.length + 4);
  foreign.writeUInt32LE(zlib.crc32(junk), 0);
  junk.copy(foreign, 4);
  writeFileSync(chunkCache, foreign);
  const refused = load(entry, cache);
  t.equal(refused.cache, 'rejected', 'V8 refused bytes that are not a cache of its own');
  t.equal(refused.exports.sum, 5);
});

t.test('a new build gets a cache of its own; the caches of old builds are dropped but the newest few', async (t) => {
  const { entry, cache } = bundle(t);
  load(entry, cache).save();
  const before = readdirSync(cache);
  t.equal(before.length, 1);
  for (let i = 0; i < 6; i++) {
    const old = path.join(cache, `edgeblocks-app-old-${i}`);
    mkdirSync(old);
    utimesSync(old, 1000 + i, 1000 + i);
  }
  writeFileSync(entry, `${BUNDLE['app.cjs']}exports.rebuilt = true;\n`);
  const rebuilt = loadCommonJs(entry, { dir: cache });
  t.equal(rebuilt.cache, 'none', 'the rebuilt entry is not run from the old cache');
  t.equal((rebuilt.exports as { rebuilt?: boolean }).rebuilt, true);
  rebuilt.save();
  const kept = readdirSync(cache).sort();
  t.equal(kept.length, 4, `four builds kept: ${kept.join(', ')}`);
  t.ok(kept.includes(before[0]!), 'the previous build among them');
  t.notOk(kept.includes('edgeblocks-app-old-0'), 'the oldest dropped');
});

t.test('a chunk loaded later without a cache of its own is written at the next save', async (t) => {
  const dir = t.testdir({
    bundle: {
      ...BUNDLE,
      'app.cjs': `${BUNDLE['app.cjs']}exports.later = () => require('./chunk-b.cjs').b;\n`,
      'chunk-b.cjs': 'exports.b = 7;\n',
    },
    cache: {},
  });
  const entry = path.join(dir, 'bundle', 'app.cjs');
  const cache = path.join(dir, 'cache');
  load(entry, cache).save();
  const second = loadCommonJs(entry, { dir: cache });
  t.equal(second.cache, 'used', 'what the first run loaded came from the cache');
  t.equal((second.exports as { later: () => number }).later(), 7);
  t.equal(second.cache, 'none', 'the chunk it loaded later had none');
  t.match(second.save().message, /code cache of 1 file\(s\) written/, 'so the save writes that one');
  const third = loadCommonJs(entry, { dir: cache });
  (third.exports as { later: () => number }).later();
  t.equal(third.cache, 'used');
});

t.test(
  'a cache that cannot be written (a full disk, a read-only directory) is reported, and leaves nothing behind',
  async (t) => {
    const { entry, cache } = bundle(t);
    const loaded = load(entry, cache);
    // The entry's cache file taken by a directory: its part-written file cannot be renamed into place.
    mkdirSync(path.join(loaded.where, 'app.cjs.v8cache', 'taken'), { recursive: true });
    const saved = loaded.save();
    t.equal(saved.ok, false);
    t.match(saved.message, /code cache not written/);
    t.equal(loaded.exports.sum, 5, 'the code runs on');
    t.same(
      readdirSync(loaded.where).filter((n) => n.endsWith('.tmp')),
      [],
      'no part-written file left',
    );
  },
);

t.test('without a directory the bundle still runs, uncached', async (t) => {
  const { entry } = bundle(t);
  const off = loadCommonJs(entry, { off: 'NODE_DISABLE_COMPILE_CACHE is set' });
  t.equal(off.cache, 'off');
  t.equal((off.exports as { sum: number }).sum, 5);
  t.match(off.save().message, /no code cache: NODE_DISABLE_COMPILE_CACHE/);
});

t.test(
  'the CLI writes the cache at a clean stop, the next start uses it, and a damaged one is made again',
  async (t) => {
    const dir = t.testdir({ data: {}, cache: {} });
    const env = { NODE_COMPILE_CACHE: path.join(dir, 'cache') };
    const args = [
      '--hardware',
      'sim',
      '--mqtt-port',
      '0',
      '--log-level',
      'debug',
      '--data-dir',
      path.join(dir, 'data'),
    ];
    const start = async () => {
      const cli = await startCli(args, env, t);
      t.teardown(() => void cli.child.kill('SIGKILL'));
      return cli;
    };
    const stop = async (cli: Awaited<ReturnType<typeof start>>) => {
      cli.child.kill('SIGTERM');
      await cli.exited;
    };

    const first = await start();
    t.match(first.output(), /service modules: dist\/bundle \(code cache: none\)/);
    await stop(first);
    t.match(first.output(), /code cache of \d+ file\(s\) written/, 'the clean stop wrote the cache');

    const second = await start();
    t.match(
      second.output(),
      /service modules: dist\/bundle \(code cache: used\)/,
      'the second start runs from the cache',
    );
    const created = await postJson(`${second.base}/edge-one/blocks/create`, {
      id: 'Cached',
      type: 'TempSensorMock',
      data: { setting: 21 },
    });
    t.equal(created.status, 201, 'and serves the API');
    // V8 drops a script's import() callback when it runs from a cache: what the bundle loads lazily must still load.
    t.equal(
      (await fetch(`${second.base}/edge-one/api/doc/json`)).status,
      200,
      'and the docs, loaded on their first request',
    );
    await stop(second);

    const sub = path.join(
      dir,
      'cache',
      readdirSync(path.join(dir, 'cache')).find((n) => n.startsWith('edgeblocks-app-'))!,
    );
    const app = path.join(sub, readdirSync(sub).find((n) => /^app-.*\.cjs\.v8cache$/.test(n))!);
    const bytes = readFileSync(app);
    bytes[bytes.length - 100]! ^= 0x01;
    writeFileSync(app, bytes);
    const third = await start();
    t.match(third.output(), /service modules: dist\/bundle \(code cache: corrupt\)/, 'a flipped bit is caught');
    t.equal(
      (await postJson(`${third.base}/edge-one/blocks/read`, { id: 'Cached' })).status,
      200,
      'the service runs from the source',
    );
    await stop(third);
    t.match(third.output(), /code cache of \d+ file\(s\) written/, 'and its stop made the cache again');
    const fourth = await start();
    t.match(fourth.output(), /service modules: dist\/bundle \(code cache: used\)/, 'which the next start uses');
    await stop(fourth);
    t.notMatch(fourth.output(), /code cache of \d+ file/, 'a start that used the cache does not write it again');
  },
);
