// The built-in dashboard: the files Vite built from web/ (into dist/web), served at `/`, plus
// `GET /dashboard.json` telling the page which service it belongs to. Registers nothing when
// the dashboard was not built, so `/` is left to whoever answers it otherwise. Only what the
// build put there is served: no dotfiles, and no symbolic link that leads out of the web root.
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { publicRoutes } from './public-routes.js';
import { PageQuery } from './route-validation.js';

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

export function dashboardRoutes(
  info: { serviceId: string; emitIntervalMs: number },
  root = dashboardDir(),
): FastifyPluginAsync {
  return async (app) => {
    if (!root) {
      app.log.info('dashboard not built (no dist/web): run npm run build:web');
      return;
    }
    const realRoot = realpathSync(root);
    publicRoutes(app); // the page, its files and which service it belongs to: no data, and they show the login
    // Files take no input; a query string (a bookmark's) is ignored, as any web server does.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, querystring: PageQuery };
    });
    app.get('/dashboard.json', { schema: { hide: true } }, async () => ({
      serviceId: info.serviceId,
      emitIntervalMs: info.emitIntervalMs,
    }));
    // One route per built file (wildcard: false), `/` among them: an unknown path matches no
    // route, so it is the app's JSON 404, or the auth guard's 401 (it is not a public route).
    // No dotfiles, and no link that leads out of the root (the file list follows links).
    await app.register(fastifyStatic, {
      root,
      prefix: '/',
      wildcard: false,
      index: ['index.html'],
      maxAge: '1h',
      dotfiles: 'ignore',
      allowedPath: (pathname) => staysInside(realRoot, path.join(root, pathname)),
      setHeaders: (reply, file) => {
        if (file.endsWith('index.html')) reply.header('cache-control', 'no-cache');
      },
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
