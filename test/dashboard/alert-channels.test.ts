// Issue 47 item 5 in a real browser (Debian's Chromium) against the built CLI with auth on: a
// brewer logs in, sees the config file's webhook read-only, adds an ntfy channel against a local
// receiver, tests it and sees the message arrive, edits it (a new token; the URL left empty is
// kept), removes it; a bad value is refused with the field named. Without a login nothing can
// be changed. No secret (the config file's or one typed on the page) is ever in an API answer,
// an event stream, or the page. Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HttpReceiver, until } from '../alerts/receivers.js';
import { addUser } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { launchBrowser, removeDir, screenshot, startSim, type SimService, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(300_000));

const PASSWORD = 'mash at 67 degrees';
const HOOK_SECRET = 'gotify-key-from-file-s3cret';
const HOOK_PATH = '/hook/ha-webhook-id-s3cret';
const TOPIC = '/ntfy/brewery-topic-s3cret';
const TOKEN = 'tk_first_s3cret';
const TOKEN2 = 'tk_second_s3cret';
const SECRETS = [HOOK_SECRET, HOOK_PATH, TOPIC, TOKEN, TOKEN2];

let sim: SimService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let dir: string;
const receiver = new HttpReceiver();
/** Every answer the page got from the service, as text. */
const seen: string[] = [];

t.before(async () => {
  await receiver.start();
  dir = mkdtempSync(path.join(os.tmpdir(), 'eb-dash-channels-'));
  const dataDir = path.join(dir, 'data');
  addUser(dataDir, 'brewer', PASSWORD);
  const config = path.join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      alerts: { webhook: { url: receiver.url(HOOK_PATH), headers: { 'X-Gotify-Key': HOOK_SECRET } } },
    }),
  );
  sim = await startSim(['--config', config, '--auth', 'true'], 1000, dataDir);
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(limit(15_000));
  page.on('dialog', (d) => void d.accept());
  page.on('response', (res) => {
    const type = res.headers()['content-type'] ?? '';
    if (/json|html|text\/plain/.test(type))
      void res.text().then(
        (text) => seen.push(text),
        () => undefined,
      );
  });
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  await receiver.stop();
  if (dir) removeDir(dir);
});

const api = () => `${sim.cli.base}/edge-one`;
const panel = () => page.getByTestId('alert-channels');
const row = (name: string) => panel().locator(`tr[data-channel="${name}"]`);
const answer = () => panel().getByTestId('channel-answer');

/** The page's text and markup, and the values of every input, hold none of the secrets. */
async function pageHoldsNoSecret(t: Test, when: string): Promise<void> {
  const html = await page.content();
  const values = await page
    .locator('input, textarea')
    .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
  for (const s of SECRETS)
    t.notOk(html.includes(s) || values.some((v) => v.includes(s)), `${when}: the page has no ${s}`);
}

t.test('without a login, channels cannot be changed', async (t) => {
  for (const [method, url] of [
    ['PUT', `${api()}/alerts/channels/ntfy`],
    ['DELETE', `${api()}/alerts/channels/webhook`],
    ['POST', `${api()}/alerts/test?channel=webhook`],
    ['GET', `${api()}/alerts/channels`],
  ]) {
    const res = await fetch(url!, {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify({ url: receiver.url('/x') }),
    });
    t.equal(res.status, 401, `${method} ${url} without a login is 401`);
  }
  t.equal(receiver.got.length, 0, 'and nothing was sent');
});

t.test('add, test, edit and remove an ntfy channel from the Alerts page', async (t) => {
  await page.goto(`${sim.cli.base}/#/alerts`);
  const login = page.getByTestId('login');
  await login.waitFor();
  await login.locator('input[name=username]').fill('brewer');
  await login.locator('input[name=password]').fill(PASSWORD);
  await login.locator('button[type=submit]').click();
  await panel().waitFor();

  // The config file's webhook: shown, testable, not editable.
  await row('webhook').waitFor();
  t.match(await row('webhook').innerText(), /from the config file/, "the config file's webhook is listed as such");
  t.match(
    await row('webhook').innerText(),
    /URL: set \(http:\/\/127\.0\.0\.1:\d+\)/,
    'its URL shows as set, with its host',
  );
  t.equal(await row('webhook').getByRole('button', { name: 'Edit' }).count(), 0, 'it has no Edit');
  t.equal(await row('webhook').getByRole('button', { name: 'Remove' }).count(), 0, 'and no Remove');
  await row('webhook').getByRole('button', { name: 'Test' }).click();
  await answer().filter({ hasText: 'webhook: test delivered' }).waitFor();
  const hook = receiver.got.find((r) => r.path === HOOK_PATH);
  t.equal(hook?.headers['x-gotify-key'], HOOK_SECRET, 'its test reached the receiver with its header');

  // Add ntfy; a bad URL first is refused with the field named, and nothing is stored.
  await panel().locator('select[name=add-channel]').selectOption('ntfy');
  const form = page.getByTestId('channel-form');
  await form.waitFor();
  await form.locator('input[name=ntfy-url]').fill('not a url');
  await form.locator('input[name=ntfy-token]').fill(TOKEN);
  await form.getByRole('button', { name: 'Save' }).click();
  const refused = form.getByTestId('channel-form-answer');
  await refused.waitFor();
  t.match(await refused.innerText(), /not saved: .*url/, 'a bad URL is refused, naming the field');
  t.equal(await row('ntfy').count(), 0, 'no ntfy channel yet');

  await form.locator('input[name=ntfy-url]').fill(receiver.url(TOPIC));
  await form.getByRole('button', { name: 'Save' }).click();
  await row('ntfy').waitFor();
  t.match(await row('ntfy').innerText(), /set up on this page/, 'ntfy is listed as set up here');
  t.match(await row('ntfy').innerText(), /Access token: set/, 'its token shows as set');
  await pageHoldsNoSecret(t, 'after saving');
  await screenshot(page, 'alerts-channels-desktop');

  await row('ntfy').getByRole('button', { name: 'Test' }).click();
  await answer().filter({ hasText: 'ntfy: test delivered' }).waitFor();
  const first = await until('the test message at the ntfy receiver', limit(5000), () =>
    receiver.got.find((r) => r.path === TOPIC),
  );
  t.equal(first.headers.authorization, `Bearer ${TOKEN}`, 'the message arrived with the token');
  t.match(String(first.headers.title), /Test message/, 'as the test message');
  t.match(first.body, /the channel works/);

  // Edit: the form never holds the stored secrets; a new token, the URL left empty (kept).
  await row('ntfy').getByRole('button', { name: 'Edit' }).click();
  await form.waitFor();
  t.equal(await form.locator('input[name=ntfy-url]').inputValue(), '', 'the stored URL is not in the form');
  t.equal(await form.locator('input[name=ntfy-token]').inputValue(), '', 'nor the token');
  t.match(
    (await form.locator('input[name=ntfy-url]').getAttribute('placeholder')) ?? '',
    /set \(http:\/\/127\.0\.0\.1:\d+\): empty keeps it/,
    'the form says the URL is set and that empty keeps it',
  );
  await pageHoldsNoSecret(t, 'in the edit form');
  await screenshot(page, 'alerts-channel-form-desktop');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'alerts-channel-form-phone');
  await page.setViewportSize({ width: 1200, height: 900 });
  await form.locator('input[name=ntfy-token]').fill(TOKEN2);
  await form.getByRole('button', { name: 'Save' }).click();
  await answer().filter({ hasText: 'ntfy: saved' }).waitFor();
  const before = receiver.got.length;
  await row('ntfy').getByRole('button', { name: 'Test' }).click();
  await answer().filter({ hasText: 'ntfy: test delivered' }).waitFor();
  const second = await until('the second test message', limit(5000), () =>
    receiver.got.slice(before).find((r) => r.path === TOPIC),
  );
  t.equal(second.headers.authorization, `Bearer ${TOKEN2}`, 'the edit is in force: the new token');
  t.pass('the URL left empty was kept: the message went to the same topic');

  // Remove it: gone from the list and offered again under "Add a channel".
  await row('ntfy').getByRole('button', { name: 'Remove' }).click();
  await answer().filter({ hasText: 'ntfy: removed' }).waitFor();
  // The answer shows before the list is read again: wait for the row to go, a while at most.
  await row('ntfy')
    .waitFor({ state: 'detached', timeout: limit(5000) })
    .catch(() => undefined);
  t.equal(await row('ntfy').count(), 0, 'ntfy is no longer listed');
  t.ok(
    (await panel().locator('select[name=add-channel] option').allInnerTexts()).some((o) => o.startsWith('ntfy')),
    'and can be added again',
  );
  const after = (await (await context.request.get(`${api()}/alerts/channels`)).json()) as { channels: any[] };
  t.equal(after.channels.find((c) => c.name === 'ntfy').source, null, 'the service agrees');
  await pageHoldsNoSecret(t, 'after removing');
});

t.test('no API answer, event stream or page ever holds a secret', async (t) => {
  // Set ntfy up again so a dashboard secret is stored while every route is read.
  const put = await context.request.put(`${api()}/alerts/channels/ntfy`, {
    data: { url: receiver.url(TOPIC), token: TOKEN2 },
  });
  t.equal(put.status(), 200);
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const paths = new Set<string>();
  for (const doc of ['/edge-one/api/doc/json', '/history/api/doc/json']) {
    const spec = (await (await fetch(`${sim.cli.base}${doc}`, { headers: { cookie } })).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const [p, methods] of Object.entries(spec.paths)) if (methods.get && !p.includes('{')) paths.add(p);
  }
  t.ok(paths.has('/edge-one/alerts/channels'), 'the channel list is among the routes read');
  t.ok(paths.size >= 10, `${paths.size} GET routes read: ${[...paths].join(', ')}`);
  for (const p of [...paths, '/', '/dashboard.json']) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), limit(2500));
    let text = '';
    try {
      const res = await fetch(`${sim.cli.base}${p}`, { headers: { cookie }, signal: ctl.signal });
      // An event stream never ends: what arrives in the time given (its first events) is read.
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
    } catch {
      // aborted: the stream's first part is in `text`
    } finally {
      clearTimeout(timer);
    }
    for (const s of SECRETS) t.notOk(text.includes(s), `GET ${p} holds no ${s}`);
  }
  for (const s of SECRETS)
    t.notOk(
      seen.some((x) => x.includes(s)),
      `no answer the page got holds ${s}`,
    );
  t.ok(seen.length > 10, `${seen.length} answers the page got were read`);
  await page.reload();
  await row('ntfy').waitFor();
  await pageHoldsNoSecret(t, 'after a reload');
  for (const s of SECRETS) t.notOk(sim.cli.output().includes(s), `the service log holds no ${s}`);
});
