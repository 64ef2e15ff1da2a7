// The built-in dashboard: the files Vite built from web/ (into dist/web), served at `/`, plus
// `GET /dashboard.json` telling the page which service it belongs to. Registers nothing when
// the dashboard was not built, so `/` is left to whoever answers it otherwise. Only what the
// build put there is served: no dotfiles, and no symbolic link that leads out of the web root.
// index.html comes with the prepaint (web/src/prepaint.ts, built into dist/web-prepaint/): the
// overview as static HTML and the state message it shows, so a slow phone paints the cards with
// their numbers before the page's code runs. Only to a request that may read the blocks: with
// auth on and no session the page is the plain file, and the login comes first.
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/** What the prepaint shows, and whom to: all from the public API's point of view. */
export interface PrepaintSource {
  /** The event stream's `state` message, as it would go out now. */
  state: () => { status: Record<string, unknown>; blocks: unknown[] };
  /** Block type -> role, as the API document's x-role declares it. */
  roles: () => Record<string, string>;
  /** Whether this request may read the blocks (auth off, or a session or token). */
  mayRead: (headers: IncomingHttpHeaders) => boolean;
}

type PrepaintHtml = (input: { serviceId: string; state: unknown; roles: unknown }) => string;

/** The built prepaint next to the web root, or null (not built: the page starts without it). */
function loadPrepaint(root: string): PrepaintHtml | null {
  const file = path.join(root, '..', 'web-prepaint', 'prepaint.cjs');
  if (!existsSync(file)) return null;
  return (createRequire(import.meta.url)(file) as { prepaintHtml: PrepaintHtml }).prepaintHtml;
}

const APP_DIV = /<div id="app">[\s\S]*?<\/div>/;

/** JSON inside a <script> element: no `<`, so no `</script>` or `<!--` in a block's name ends or changes it. */
export const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

export function dashboardRoutes(
  info: { serviceId: string; emitIntervalMs: number },
  root = dashboardDir(),
  source?: PrepaintSource,
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
    const indexHtml = inlineStyles(readFileSync(path.join(root, 'index.html'), 'utf8'), root, realRoot);
    const prepaint = source && APP_DIV.test(indexHtml) ? loadPrepaint(root) : null;
    const page = async (req: FastifyRequest, reply: FastifyReply) => {
      reply.type('text/html; charset=utf-8');
      if (!prepaint || !source?.mayRead(req.headers)) return reply.header('cache-control', 'no-cache').send(indexHtml);
      let html: string;
      try {
        const state = source.state();
        const app = prepaint({ serviceId: info.serviceId, state, roles: source.roles() });
        html = afterFirstPaint(
          indexHtml.replace(
            APP_DIV,
            () =>
              `<div id="app">${app}</div><script type="application/json" id="prepaint-state">${scriptJson(state)}</script>`,
          ),
        );
      } catch (e) {
        req.log.error({ err: e }, 'dashboard: prepaint failed, serving the page without it');
        html = indexHtml;
      }
      // Holds the blocks of this moment and of this session: never reused.
      return reply.header('cache-control', 'no-store').header('vary', 'cookie, authorization').send(html);
    };
    app.get('/', page);
    app.get('/index.html', page);
    // One route per built file (wildcard: false), `/` and index.html above: an unknown path matches no
    // route, so it is the app's JSON 404, or the auth guard's 401 (it is not a public route).
    // No dotfiles, and no link that leads out of the root (the file list follows links).
    await app.register(fastifyStatic, {
      root,
      prefix: '/',
      wildcard: false,
      index: false,
      globIgnore: ['index.html'],
      maxAge: '1h',
      dotfiles: 'ignore',
      allowedPath: (pathname) => staysInside(realRoot, path.join(root, pathname)),
    });
  };
}

/**
 * With a prepaint the page's code starts after the first paint: a module that is already loaded
 * (modulepreload) runs as soon as the page is parsed, and compiling and running it held the
 * prepaint's first paint back by as long again on a slow phone. The code comes a frame later.
 */
function afterFirstPaint(html: string): string {
  return html.replace(
    /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"><\/script>/,
    (_, src: string) =>
      `<script>requestAnimationFrame(function(){setTimeout(function(){var s=document.createElement('script');s.type='module';s.crossOrigin='';s.src=${JSON.stringify(src)};document.head.appendChild(s)})})</script>`,
  );
}

/**
 * The first view's style sheets written into the page: an external sheet blocks the first paint
 * for one more request, which on a slow phone doubled the time to the prepaint's first paint.
 */
function inlineStyles(html: string, root: string, realRoot: string): string {
  return html.replace(/<link rel="stylesheet"[^>]*? href="(\/assets\/[^"]+\.css)"[^>]*>/g, (link, href: string) => {
    const file = path.join(root, href);
    if (!staysInside(realRoot, file) || !existsSync(file)) return link;
    const css = readFileSync(file, 'utf8');
    return css.includes('</') ? link : `<style>${css}</style>`;
  });
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
