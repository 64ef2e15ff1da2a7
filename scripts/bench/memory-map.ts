// Where a process's resident memory is, from /proc/<pid>/smaps: the Node binary's own pages,
// native addons, shared libraries, glibc's main malloc heap, V8's heap pages (V8 maps its
// spaces in 256 KiB chunks) and the other anonymous memory (thread malloc arenas, large
// objects, stacks). Linux only, like the service.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type MemoryPart =
  | 'node binary'
  | 'native addons'
  | 'shared libraries'
  | 'malloc heap'
  | 'V8 heap pages'
  | 'other anonymous'
  | 'other files';
export const MEMORY_PARTS: MemoryPart[] = [
  'node binary',
  'V8 heap pages',
  'malloc heap',
  'other anonymous',
  'native addons',
  'shared libraries',
  'other files',
];

const V8_CHUNK_KB = 256;

function partOf(name: string, sizeKb: number): MemoryPart {
  if (name === '' || name.startsWith('[anon')) return sizeKb === V8_CHUNK_KB ? 'V8 heap pages' : 'other anonymous';
  if (name === '[heap]') return 'malloc heap';
  if (name.startsWith('[')) return 'other anonymous';
  if (name.endsWith('.node')) return 'native addons';
  if (/\.so(\.|$)/.test(name)) return 'shared libraries';
  if (name === process.execPath || name.endsWith('/node')) return 'node binary';
  return 'other files';
}

/** Resident MB of each part of a process's memory. */
export function memoryMap(pid: number): Record<MemoryPart, number> {
  const out = Object.fromEntries(MEMORY_PARTS.map((p) => [p, 0])) as Record<MemoryPart, number>;
  let part: MemoryPart = 'other anonymous';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      part = partOf(head[3]!.trim(), (Number.parseInt(head[2]!, 16) - Number.parseInt(head[1]!, 16)) / 1024);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[part] += Number(rss[1]) / 1024;
  }
  return out;
}

/**
 * The V8 heap each package adds when imported into a process that has fastify loaded already
 * (the bare reference's own cost), after full GCs; the median of three fresh processes.
 */
export function importHeapMb(specifier: string, cwd: string): number {
  const probe = `const used = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
await import('fastify'); const a = used(); globalThis.kept = await import(${JSON.stringify(specifier)});
await new Promise((r) => setTimeout(r, 100)); console.log((used() - a) / 1048576);`;
  const runs = [0, 1, 2].map(() =>
    Number(
      execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', probe], {
        cwd,
        encoding: 'utf8',
      }).trim(),
    ),
  );
  return runs.sort((x, y) => x - y)[1]!;
}
