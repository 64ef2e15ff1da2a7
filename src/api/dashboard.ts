// The built-in dashboard: the files Vite built from web/ (into dist/web), served at `/`, plus
// `GET /dashboard.json` telling the page which service it belongs to. Registers nothing when
// the dashboard was not built, so `/` is left to whoever answers it otherwise. Only what the
// build put there is served: no dotfiles, and no symbolic link that leads out of the web root.
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/web of the package this module belongs to (from src/ or from dist/src/). */
export function dashboardDir(): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(path.join(dir, 'package.json'))) {
      const web = path.join(dir, 'dist', 'web');
      return existsSync(path.join(web, 'index.html')) ? web : null;
    }
    dir = path.dirname(dir);
  }
  return null;
}

export function dashboardRoutes(info: { serviceId: string; emitIntervalMs: number }, root = dashboardDir()): FastifyPluginAsync {
  return async (app) => {
    if (!root) {
      app.log.info('dashboard not built (no dist/web): run npm run build:web');
      return;
    }
    const realRoot = realpathSync(root);
    app.get('/dashboard.json', { schema: { hide: true } }, async () => ({ serviceId: info.serviceId, emitIntervalMs: info.emitIntervalMs }));
    // `/` itself is a route of its own, so the API index (src/api/index-route.ts) knows it is taken.
    app.get('/', { schema: { hide: true } }, (_req, reply) => reply.header('cache-control', 'no-cache').sendFile('index.html'));
    // Unknown files fall through to the app's JSON 404 (reply.callNotFound).
    await app.register(fastifyStatic, {
      root,
      prefix: '/',
      index: ['index.html'],
      maxAge: '1h',
      dotfiles: 'ignore',
      allowedPath: (pathname) => staysInside(realRoot, path.join(root, pathname)),
      setHeaders: (reply, file) => { if (file.endsWith('index.html')) reply.header('cache-control', 'no-cache'); },
    });
  };
}

/** Whether `file`, links resolved, is inside `realRoot`. A file that does not exist passes: it is a 404 anyway. */
function staysInside(realRoot: string, file: string): boolean {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return true;
  }
  return real === realRoot || real.startsWith(realRoot + path.sep);
}
