// The dashboard with auth on, in a real browser: the page asks for a login instead of showing
// nothing, a wrong password is said in words, the right one (a user made with the CLI) reaches
// the live overview, and the session survives a reload. The logout button ends the session: the
// page shows the login form and the old cookie is refused. A session ended elsewhere is shown as
// "logged out", not as offline. A logout the service could not record (the users file held by
// another writer) is said in words, and the page stays as it was. Over the login limit the page shows the server's 429 in words.
// tags: slow (a real Chromium)
import { mkdtempSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Browser, Locator, Page } from 'playwright-core';
import { addUser } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { launchBrowser, removeDir, startSim, type SimService, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(300_000));

let sim: SimService;
let browser: Browser;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'eb-dash-login-'));
const BOOT_ID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

t.before(async () => {
  addUser(dataDir, 'brewer', 'mash at 67 degrees');
  sim = await startSim(['--auth', 'true'], 1000, dataDir);
  browser = await launchBrowser();
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  removeDir(dataDir);
});

/** Open the page and send the login form as brewer, with the right password: the form. */
async function logIn(page: Page): Promise<Locator> {
  await page.goto(`${sim.cli.base}/`);
  const form = page.getByTestId('login');
  await form.waitFor({ timeout: limit(15_000) });
  await form.locator('input[name=username]').fill('brewer');
  await form.locator('input[name=password]').fill('mash at 67 degrees');
  await form.locator('button[type=submit]').click();
  return form;
}

t.test('the page asks for a login, refuses a wrong password, and opens with the right one', async (t) => {
  const page = await browser.newPage();
  await page.goto(`${sim.cli.base}/`);
  const form = page.getByTestId('login');
  await form.waitFor({ timeout: limit(15_000) });
  t.equal(await page.locator('section.card').count(), 0, 'no block is shown before the login');

  await form.locator('input[name=username]').fill('brewer');
  await form.locator('input[name=password]').fill('not the password');
  await form.locator('button[type=submit]').click();
  const error = page.getByTestId('login-error');
  await error.waitFor({ timeout: limit(10_000) });
  t.match(await error.innerText(), /wrong user name or password/);

  await form.locator('input[name=password]').fill('mash at 67 degrees');
  await form.locator('button[type=submit]').click();
  await page
    .getByTestId('online')
    .filter({ hasText: 'online' })
    .waitFor({ timeout: limit(15_000) });
  await page.locator('section.card[data-block="SysInfo"]').waitFor({ timeout: limit(15_000) });
  t.pass('the live overview is shown after the login');

  await page.reload();
  await page.locator('section.card[data-block="SysInfo"]').waitFor({ timeout: limit(15_000) });
  t.equal(await page.getByTestId('login').count(), 0, 'the session cookie carries over a reload');
  await page.close();
});

t.test('the logout button ends the session and shows the login form', async (t) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const form = await logIn(page);
  const logout = page.getByTestId('logout');
  await logout.waitFor({ timeout: limit(15_000) });
  t.match(await logout.innerText(), /brewer/, 'the button names the user');
  const cookie = (await context.cookies()).find((c) => c.name === 'Authorization');
  t.ok(cookie, 'a session cookie was set');
  const read = () =>
    fetch(`${sim.cli.base}/edge-one/blocks/all/read`, {
      method: 'POST',
      headers: { cookie: `Authorization=${cookie!.value}`, 'content-type': 'application/json' },
      body: '{}',
    });
  t.equal((await read()).status, 200, 'the cookie works before the logout');

  await logout.click();
  await form.waitFor({ timeout: limit(15_000) });
  t.equal(await page.locator('section.card').count(), 0, 'after the logout the page shows the login form, no block');
  t.equal(await page.getByTestId('logout').count(), 0, 'and no logout button');
  t.equal((await read()).status, 401, 'the old cookie is refused');
  await page.reload();
  await form.waitFor({ timeout: limit(15_000) });
  t.pass('a reload still asks for the login');
  await context.close();
});

t.test('a logout the service could not record says so, and the user stays logged in to try again', async (t) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const form = await logIn(page);
  const logout = page.getByTestId('logout');
  await logout.waitFor({ timeout: limit(15_000) });
  // Another writer (here: this process) holds the users file past the service's wait.
  const lock = path.join(dataDir, 'users.json.lock');
  writeFileSync(lock, `${process.pid} ${BOOT_ID} test\n`, { mode: 0o600 });
  try {
    await logout.click();
    const error = page.getByTestId('logout-error');
    await error.waitFor({ timeout: limit(30_000) });
    t.match(await error.innerText(), /the logout was not recorded/, "the server's reason, in words");
    t.ok(await logout.isEnabled(), 'the button can be pressed again');
    t.equal(await form.count(), 0, 'the page did not go to the login form');
    t.ok(await page.locator('section.card').count(), 'the blocks are still shown');
  } finally {
    unlinkSync(lock);
  }
  await logout.click();
  await form.waitFor({ timeout: limit(15_000) });
  t.equal(await page.getByTestId('logout-error').count(), 0, 'logged out, no error left');
  await context.close();
});

t.test('a session ended elsewhere shows "logged out", not "offline", and offers the login again', async (t) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const form = await logIn(page);
  await page
    .getByTestId('online')
    .filter({ hasText: 'online' })
    .waitFor({ timeout: limit(15_000) });
  const cookie = (await context.cookies()).find((c) => c.name === 'Authorization');
  // Logging out from another client ends every session of the user.
  t.equal(
    (await fetch(`${sim.cli.base}/auth/logout`, { headers: { cookie: `Authorization=${cookie!.value}` } })).status,
    200,
  );
  t.equal(
    (
      await fetch(`${sim.cli.base}/edge-one/settings/enabled`, {
        headers: { cookie: `Authorization=${cookie!.value}` },
      })
    ).status,
    401,
    'the service refuses the old session',
  );
  // The page finds out from its next check (every 5 s) or when the server ends the stream.
  await page.getByTestId('logged-out').waitFor({ timeout: limit(30_000) });
  t.equal(await page.getByTestId('online').innerText(), 'logged out', 'the header says logged out');
  t.equal(await page.getByTestId('offline').count(), 0, 'not offline: the service answers');
  await page.waitForTimeout(limit(3000));
  t.equal(await page.getByTestId('online').innerText(), 'logged out', 'and stays so while state events go on arriving');
  await page.getByTestId('logged-out').getByRole('button', { name: 'Log in again' }).click();
  await form.waitFor({ timeout: limit(30_000) });
  t.pass('the login form is back');
  await context.close();
});

// Last: it leaves this address over the login limit for the rest of the minute.
t.test('over the login limit, the page says so in the server words, with when to try again', async (t) => {
  const wrong = await Promise.all(
    Array.from({ length: 10 }, () =>
      fetch(`${sim.cli.base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'brewer', password: 'a guess' }),
      }),
    ),
  );
  t.ok(
    wrong.every((r) => r.status === 401 || r.status === 429),
    'ten wrong logins use the budget',
  );
  const page = await browser.newPage();
  await logIn(page);
  const error = page.getByTestId('login-error');
  await error.waitFor({ timeout: limit(10_000) });
  t.match(
    await error.innerText(),
    /^too many login attempts from this address \(10 a minute, .*\); try again in \d+ s \(429\)$/,
    'the 429 is shown as the server wrote it',
  );
  await page.close();
});
