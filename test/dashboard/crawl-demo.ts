// The crawler's walk of the demo at one width (issue 47.1), for test/dashboard/crawler.test.ts
// (desktop) and crawler-phone.test.ts (phone): the built CLI, --hardware sim, the demo blocks,
// everything discovery finds and a fermentation profile; every page and the editor of one block of
// each type, every control on them used (crawl.ts). One width per file: both in one file ran up
// to its 300 s limit on a busy 2-core machine. Not a test file itself.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import type { Browser } from 'playwright-core';
import { postJson, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { launchBrowser, removeDir, startSim, type SimService, requireWebBuild } from './browser.js';
import { useEveryControl, Watch } from './crawl.js';

const SID = 'edge-one';

const PAGES = ['overview', 'graphs', 'setup', 'hardware', 'alerts', 'block'];

/** Every control on every page of the demo at `width`, nothing breaks: the file's one test. */
export function crawlDemo(t: Test, width: number, label: string): void {
  requireWebBuild();
  t.setTimeout(limit(300_000));

  let sim: SimService;
  let browser: Browser;

  t.before(async () => {
    sim = await startSim();
    const seeded = await postJson(
      `${sim.cli.base}/${SID}/blocks/backup/load`,
      JSON.parse(readFileSync(path.join(ROOT, 'scripts/demo-blocks.json'), 'utf8')),
    );
    if (seeded.status !== 200) throw new Error(`demo blocks not loaded: ${JSON.stringify(seeded.body)}`);
    const found = await postJson(`${sim.cli.base}/${SID}/blocks/discover`);
    if (found.status !== 200) throw new Error(`discovery failed: ${JSON.stringify(found.body)}`);
    // A fermentation profile too (the demo has none), so its card and editor are walked.
    const profile = await postJson(`${sim.cli.base}/${SID}/blocks/create`, {
      id: 'Beer Profile',
      type: 'SetpointProfile',
      data: { enabled: false, targetId: { __objtype: 'Link', id: 'Beer Setpoint' }, points: [] },
    });
    if (profile.status !== 201) throw new Error(`profile not created: ${JSON.stringify(profile.body)}`);
    browser = await launchBrowser();
  });

  t.teardown(async () => {
    await browser?.close().catch(() => undefined);
    await sim?.stop();
    if (sim) removeDir(sim.dataDir);
  });

  /** One block of each type the demo has (system blocks included), for their editors. */
  async function oneOfEachType(): Promise<string[]> {
    const all = (await postJson(`${sim.cli.base}/${SID}/blocks/all/read`)).body as Array<{ id: string; type: string }>;
    const byType = new Map<string, string>();
    for (const b of all) if (!byType.has(b.type)) byType.set(b.type, b.id);
    return [...byType.values()].map((id) => `block/${encodeURIComponent(id)}`);
  }

  t.test(`${label} (${width} px): every control on every page, nothing breaks`, async (t) => {
    const phone = width < 500;
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      isMobile: phone,
      hasTouch: phone,
      acceptDownloads: true,
    });
    t.teardown(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(limit(10_000));
    const watch = new Watch(page);
    // CRAWL_ROUTES (comma-separated) narrows the walk when looking into one page.
    const only = process.env.CRAWL_ROUTES?.split(',');
    const routes = [...PAGES, ...(await oneOfEachType())].filter((r) => !only || only.includes(r));
    const started = Date.now();
    let uses = 0;
    for (const route of routes) {
      watch.where = `#/${decodeURIComponent(route)}`;
      const go = async () => {
        await page.goto(`${sim.cli.base}/#/${route}`);
        await page
          .getByTestId('online')
          .filter({ hasText: 'online' })
          .waitFor({ timeout: limit(15_000) });
        await page
          .locator('main')
          .getByText(
            /^(Loading…|Waiting for the controller…|Reading the schema…|Asking the history service for fields…)$/,
          )
          .waitFor({ state: 'detached', timeout: limit(15_000) });
        await watch.settle();
      };
      await go();
      uses += await useEveryControl(watch, go);
    }
    t.ok(
      uses > 100,
      `${uses} controls used on ${routes.length} pages in ${Math.round((Date.now() - started) / 1000)} s`,
    );
    t.same(
      watch.troubles.map((x) => `${x.where}: ${x.what}`),
      [],
      'no uncaught error, console error or 5xx',
    );
  });
}
