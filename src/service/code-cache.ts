// V8's code cache for the bundle: the code a start compiled, kept on disk, so the next start
// does not compile it again (on this machine a third of the module load).
//
// Node >= 22.1 has a compile cache of its own (module.enableCompileCache), but it keeps a
// module's code as compiled before it ran: the top level, not the functions a start calls (V8
// compiles those on their first call, and that is most of the work); Node 20 has none. Here each
// file of the bundle is compiled as a vm.Script, and the cache is made when the service stops
// cleanly after a start without one (main.ts), so it holds what the service ran.
//
// Where: NODE_COMPILE_CACHE (the unit points it at systemd's CacheDirectory), else
// $CACHE_DIRECTORY, else $XDG_CACHE_HOME/edgeblocks or ~/.cache/edgeblocks;
// NODE_DISABLE_COMPILE_CACHE turns it off, as it does Node's. The directory must be the user's
// own and writable by no one else: what is in it runs as code. A file is named for the bundle
// (its size and time), Node's version, the CPU and the V8 flags, and starts with the CRC-32 of
// the rest, because V8 checks only the source's length, its own version and the flags, not the
// bytes: a bit flipped on an SD card would run. A file that fails a check is made again.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import zlib from 'node:zlib';

const PREFIX = 'edgeblocks-app-';
/** Builds whose caches are kept in the directory, the newest first. */
const KEEP = 4;
const BUSY_MS = 10 * 60_000;

/** What the start found: a cache V8 took; none yet; one that failed our check or V8's; or none kept. */
export type CodeCacheState = 'used' | 'none' | 'corrupt' | 'rejected' | 'off';

export interface LoadedScript {
  exports: unknown;
  /** The state of the files loaded so far. */
  readonly cache: CodeCacheState;
  /** Where the cache is kept, or why there is none. */
  where: string;
  /** Writes the cache when the start did not use one; says what it did, for the log. */
  save(): { ok: boolean; message: string };
}

/** The user's home, or none: os.homedir() throws for a user without a passwd entry and no HOME (some containers). */
function homeDirectory(): string {
  try {
    return os.homedir();
  } catch {
    return '';
  }
}

/** The directory for compiled code, by the rule above, or why there is none. */
export function cacheDirectory(
  env: NodeJS.ProcessEnv = process.env,
  home: string = homeDirectory(),
): { dir: string } | { off: string } {
  if (env.NODE_DISABLE_COMPILE_CACHE) return { off: 'NODE_DISABLE_COMPILE_CACHE is set' };
  const chosen =
    env.NODE_COMPILE_CACHE ||
    env.CACHE_DIRECTORY?.split(':')[0] ||
    (env.XDG_CACHE_HOME
      ? path.join(env.XDG_CACHE_HOME, 'edgeblocks')
      : home
        ? path.join(home, '.cache', 'edgeblocks')
        : '');
  if (!chosen) return { off: 'no cache directory (no NODE_COMPILE_CACHE, CACHE_DIRECTORY, XDG_CACHE_HOME or home)' };
  const dir = path.resolve(chosen);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    if (!st.isDirectory()) return { off: `${dir} is not a directory` };
    if (typeof process.getuid === 'function' && st.uid !== process.getuid())
      return { off: `${dir} belongs to another user` };
    if (st.mode & 0o022) return { off: `${dir} is writable by others` };
  } catch (e) {
    return { off: `${dir}: ${(e as Error).message}` };
  }
  return { dir };
}

/** FNV-1a, for a short name from the things V8 would reject a cache for. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** One directory per build of the bundle (the entry's size and time; the build writes it anew), Node version, CPU and V8 flags. */
function buildDirName(entry: string): string {
  const st = statSync(entry);
  const key = [entry, st.size, st.mtimeMs, process.execArgv.join(' '), process.env.NODE_OPTIONS ?? ''].join('\n');
  return `${PREFIX}${process.version}-${process.arch}-${shortHash(key)}`;
}

/** The cached data if the file is there and whole (its CRC-32 matches). */
function readChecked(file: string): Buffer | 'none' | 'corrupt' {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return 'none';
  }
  if (bytes.length < 5 || bytes.readUInt32LE(0) !== zlib.crc32(bytes.subarray(4))) return 'corrupt';
  return bytes.subarray(4);
}

function writeChecked(file: string, data: Buffer): number {
  const out = Buffer.allocUnsafe(data.length + 4);
  out.writeUInt32LE(zlib.crc32(data), 0);
  data.copy(out, 4);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, out, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (e) {
    // A full disk leaves a part written: not left behind to fill the cache directory.
    rmSync(tmp, { force: true });
    throw e;
  }
  return out.length;
}

/** Caches of other builds, Node versions or flags: the newest few are kept (a host may run more than one). */
function dropOldest(dir: string): void {
  const ours = readdirSync(dir)
    .filter((name) => name.startsWith(PREFIX))
    .map((name) => {
      const sub = path.join(dir, name);
      try {
        return { sub, mtime: statSync(sub).mtimeMs };
      } catch {
        return { sub, mtime: 0 };
      }
    })
    .sort((a, b) => b.mtime - a.mtime);
  // One written to in the last minutes may be another start's, writing now.
  for (const { sub, mtime } of ours.slice(KEEP))
    if (Date.now() - mtime > BUSY_MS) rmSync(sub, { recursive: true, force: true });
}

interface Loaded {
  exports: unknown;
  script: vm.Script;
  cacheFile: string;
  cache: CodeCacheState;
}

/**
 * Runs a bundle of CommonJS files (an entry and the chunks it requires, by relative name) as
 * Node would require them, each compiled with V8's code cache when a directory for it is given.
 * Everything else (node:, packages) is required as usual; import() resolves as in the main context.
 */
export function loadCommonJs(
  entry: string,
  directory: { dir: string } | { off: string } = cacheDirectory(),
): LoadedScript {
  // Node < 20.15 has no zlib.crc32 (and < 20.12 no default loader for import() in a vm.Script).
  const usable =
    'dir' in directory &&
    typeof zlib.crc32 === 'function' &&
    vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER !== undefined;
  if (!usable) {
    const why = 'dir' in directory ? `Node ${process.version} cannot` : directory.off;
    return {
      exports: createRequire(entry)(entry),
      cache: 'off',
      where: why,
      save: () => ({ ok: true, message: `no code cache: ${why}` }),
    };
  }
  const cacheDir = path.join(directory.dir, buildDirName(entry));
  const base = path.dirname(entry);
  const loaded = new Map<string, Loaded>();
  const load = (file: string): unknown => {
    const known = loaded.get(file);
    if (known) return known.exports;
    const cacheFile = path.join(cacheDir, `${path.basename(file)}.v8cache`);
    const found = readChecked(cacheFile);
    const script = new vm.Script(module.wrap(readFileSync(file, 'utf8')), {
      filename: file,
      cachedData: typeof found === 'string' ? undefined : found,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const cache: CodeCacheState = typeof found === 'string' ? found : script.cachedDataRejected ? 'rejected' : 'used';
    const mod = { exports: {} as unknown, filename: file, id: file };
    // Registered before it runs, as Node does, so a cycle between chunks sees the exports so far.
    const entryOf: Loaded = { exports: mod.exports, script, cacheFile, cache };
    loaded.set(file, entryOf);
    const nodeRequire = createRequire(file);
    const localRequire = Object.assign(
      (id: string) => (id.startsWith('./') && id.endsWith('.cjs') ? load(path.join(base, id)) : nodeRequire(id)),
      nodeRequire,
    );
    const run = script.runInThisContext() as (
      exports: unknown,
      require: NodeJS.Require,
      module: unknown,
      filename: string,
      dirname: string,
    ) => void;
    run(mod.exports, localRequire as NodeJS.Require, mod, file, base);
    entryOf.exports = mod.exports;
    return mod.exports;
  };
  const exports = load(entry);
  return {
    exports,
    // The worst of the files' loaded so far (chunks load lazily, later): a cache used in part is not "used".
    get cache(): CodeCacheState {
      const states = [...loaded.values()].map((l) => l.cache);
      return (['corrupt', 'rejected', 'none'] as const).find((s) => states.includes(s)) ?? 'used';
    },
    where: cacheDir,
    save: () => {
      const pending = [...loaded.values()].filter((l) => l.cache !== 'used');
      if (pending.length === 0) return { ok: true, message: 'code cache in use' };
      try {
        mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        let bytes = 0;
        for (const l of pending) {
          bytes += writeChecked(l.cacheFile, l.script.createCachedData());
          l.cache = 'used';
        }
        dropOldest(directory.dir);
        return {
          ok: true,
          message: `code cache of ${pending.length} file(s) written to ${cacheDir} (${Math.round(bytes / 1024)} KiB)`,
        };
      } catch (e) {
        return { ok: false, message: `code cache not written: ${(e as Error).message}` };
      }
    },
  };
}
