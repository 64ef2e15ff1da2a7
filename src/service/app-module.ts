// Which build of the service's modules the CLI loads. The bundle (npm run build: dist/bundle)
// starts faster, but a `tsc` alone after it leaves it stale, so the rule is: the bundle only
// when it is at least as new as the plain module it was made from, else the plain modules;
// EDGEBLOCKS_MODULES=plain asks for the plain ones (a CPU profile then names each file).
import { statSync } from 'node:fs';

export function pickAppModule(plain: URL, bundled: URL, env: NodeJS.ProcessEnv = process.env): string {
  if (env.EDGEBLOCKS_MODULES === 'plain') return plain.href;
  try {
    if (statSync(bundled).mtimeMs >= statSync(plain).mtimeMs) return bundled.href;
  } catch {
    // no bundle (running from src/, or tsc alone): the plain modules
  }
  return plain.href;
}
