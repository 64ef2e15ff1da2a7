// The dashboard's web root serves the built files and nothing else: no dotfiles (a stray .env or
// .git left in dist/web) and no symbolic link that leads out of the root, auth on or off. Links
// that stay inside the root are served like the files they name.
import Fastify from 'fastify';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { dashboardRoutes } from '../../src/api/dashboard.js';
import { installErrorHandling } from '../../src/api/errors.js';

const base = mkdtempSync(path.join(tmpdir(), 'edgeblocks-webroot-'));
const root = path.join(base, 'web');
const outside = path.join(base, 'secret');
mkdirSync(path.join(root, 'assets'), { recursive: true });
mkdirSync(outside);
writeFileSync(path.join(root, 'index.html'), '<html>dashboard</html>');
writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log(1)');
writeFileSync(path.join(root, '.env'), 'SECRET=dotfile');
mkdirSync(path.join(root, '.git'));
writeFileSync(path.join(root, '.git', 'config'), 'SECRET=dotdir');
writeFileSync(path.join(outside, 'passwd'), 'SECRET=outside');
symlinkSync(path.join(outside, 'passwd'), path.join(root, 'link-out.txt'));
symlinkSync(outside, path.join(root, 'dir-out'));
symlinkSync(path.join(root, 'assets', 'app.js'), path.join(root, 'link-in.js'));
t.teardown(() => rmSync(base, { recursive: true, force: true }));

const app = Fastify();
installErrorHandling(app);
await app.register(dashboardRoutes({ serviceId: 'edge-one', emitIntervalMs: 5000 }, root));
t.teardown(() => app.close());

const get = async (url: string) => {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.body };
};

t.test('the built files are served', async (t) => {
  t.equal((await get('/')).status, 200);
  t.equal((await get('/assets/app.js')).body, 'console.log(1)');
  t.equal((await get('/link-in.js')).body, 'console.log(1)', 'a link that stays inside the root is served');
});

t.test('dotfiles are not served', async (t) => {
  for (const url of ['/.env', '/.git/config', '/assets/../.env', '/%2eenv']) {
    const res = await get(url);
    t.equal(res.status, 404, `${url} answers 404`);
    t.notMatch(res.body, 'SECRET', `${url} shows nothing of the file`);
  }
});

t.test('links out of the web root are not followed', async (t) => {
  for (const url of ['/link-out.txt', '/dir-out/passwd']) {
    const res = await get(url);
    t.equal(res.status, 404, `${url} answers 404`);
    t.notMatch(res.body, 'SECRET', `${url} shows nothing of the file`);
  }
});
