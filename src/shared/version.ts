// The version is one fact: package.json's `version`, read the same way by the CLI (`edgeblocks
// version`), the service (SysInfo, system/status, the index route, the state message the fleet
// reads, Home Assistant's device info) and backups. The file is found by walking up from this
// module to the package.json named edgeblocks, so every layout finds the same one: the plain
// modules (dist/src/shared/), the bundle (dist/bundle/, where this code is inlined into a chunk)
// and an installed release (/opt/edgeblocks/dist/...). test/deploy/version.test.ts runs the
// built service as the systemd unit does and reads it from each of those places.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_NAME = 'edgeblocks';

/** What is reported when no package.json of edgeblocks is found above `from` (a broken install). */
export const UNKNOWN_VERSION = 'unknown';

/** The version in the nearest package.json named edgeblocks at or above directory `from`. */
export function readVersion(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // none here (or unreadable): look further up
    }
    if (path.dirname(dir) === dir) return UNKNOWN_VERSION;
  }
}

export const VERSION = readVersion(path.dirname(fileURLToPath(import.meta.url)));
