// A path on another system whose files lie under a root dir (`check --root`, `doctor --root`, the
// installer's DESTDIR): its links are that system's, so a link naming an absolute path names it
// under the root (/ROOT/var/lib/edgeblocks -> /data/eb is /ROOT/data/eb), as chroot would see it,
// not the machine's own /data/eb.
import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** Link hops before giving up (a loop): the kernel's own limit. */
const MAX_LINKS = 40;

/** Whether the absolute `p` lies in `root` (or is it). */
export function isUnder(root: string, p: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(p));
  return !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * `p` (a path under `root`, as the machine running this spells it) with every link in it followed
 * as on the system under `root`: an absolute target is taken under `root`, and `..` never leaves
 * it. What does not exist is kept as spelt from there on. A path outside `root` is returned as is.
 * A loop of links throws (code ELOOP), as the system would.
 */
export function inRoot(root: string, p: string): string {
  const base = path.resolve(root);
  const abs = path.resolve(p);
  if (!isUnder(base, abs)) return p;
  const parts = path.relative(base, abs).split(path.sep).filter(Boolean);
  let at = base;
  let hops = 0;
  while (parts.length > 0) {
    const part = parts.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      if (at !== base) at = path.dirname(at);
      continue;
    }
    const next = path.join(at, part);
    let link: string | null = null;
    try {
      if (lstatSync(next).isSymbolicLink()) link = readlinkSync(next);
    } catch {
      return path.join(next, ...parts);
    }
    if (link === null) {
      at = next;
      continue;
    }
    // Not the spelling: this machine would follow the links as its own (ROOT/tmp -> /tmp).
    if (++hops > MAX_LINKS)
      throw Object.assign(
        new Error(`${next}: too many levels of symbolic links (followed as on the system under ${base})`),
        {
          code: 'ELOOP',
        },
      );
    if (path.isAbsolute(link)) at = base;
    parts.unshift(...link.split('/').filter(Boolean));
  }
  return at;
}
