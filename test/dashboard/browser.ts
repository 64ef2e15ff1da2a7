// Debian's Chromium driven by playwright-core (no browser download), and a sim instance of the
// built CLI for the page to talk to. Both are killed on every path by the callers' teardown.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Test } from 'tap';
import { postJson, ROOT, startCli, type RunningCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { CHROMIUM, needTools } from '../helpers/tools.js';

export { CHROMIUM };

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  needTools('chromium');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: limit(60_000) });
}

export interface SimService {
  cli: RunningCli;
  dataDir: string;
  stop(): Promise<void>;
}

/** The built CLI on emulated hardware, in a fresh data dir, emitting every `emitMs`; `env` adds to its environment. */
export async function startSim(
  extra: string[] = [],
  emitMs = 1000,
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'eb-dash-')),
  env: NodeJS.ProcessEnv = {},
): Promise<SimService> {
  const cli = await startCli(
    ['--hardware', 'sim', '--data-dir', dataDir, '--mqtt-port', '0', '--emit-interval', String(emitMs), ...extra],
    { EDGEBLOCKS_HISTORY_FLUSH_INTERVAL: '1000', ...env },
  );
  return {
    cli,
    dataDir,
    async stop() {
      if (cli.child.exitCode === null) {
        cli.child.kill('SIGTERM');
        const timer = setTimeout(() => cli.child.kill('SIGKILL'), limit(5000));
        await cli.exited;
        clearTimeout(timer);
      }
    },
  };
}

/** The dashboard tests serve dist/web: a clear word when it was not built. */
export function requireWebBuild(): void {
  if (!existsSync(path.join(ROOT, 'dist/web/index.html')))
    throw new Error('dist/web is missing: run npm run build:web (npm ci does) before this test');
}

/** The demo's blocks (scripts/demo-blocks.json) loaded into a started service, as `npm run demo` does. */
export async function loadDemoBlocks(sim: SimService, serviceId = 'edge-one'): Promise<void> {
  const res = await postJson(
    `${sim.cli.base}/${serviceId}/blocks/backup/load`,
    JSON.parse(readFileSync(path.join(ROOT, 'scripts/demo-blocks.json'), 'utf8')),
  );
  if (res.status !== 200) throw new Error(`demo blocks not loaded: ${JSON.stringify(res.body)}`);
}

/** A page at desktop size, its waits held to the tests' limit. */
export async function desktopPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(limit(15_000));
  return page;
}

export const removeDir = (dir: string) => rmSync(dir, { recursive: true, force: true });

/** Screenshots for a person to look at: test-output/screenshots/<name>.png (gitignored). */
export const SCREENSHOTS = path.join(ROOT, 'test-output', 'screenshots');

export async function screenshot(page: import('playwright-core').Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** axe-core's source (installed in node_modules); a clear error when it is not there. */
export function axeSource(): string {
  let file: string;
  try {
    file = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
  } catch {
    throw new Error(
      'axe-core is not installed in node_modules: the accessibility check cannot run (install axe-core@4)',
    );
  }
  return readFileSync(file, 'utf8');
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** Runs axe-core (WCAG 2 A/AA rules) on the page as it is now; returns the violations. */
export async function axeViolations(page: import('playwright-core').Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.addScriptTag({ content: axeSource() });
  return (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  )) as AxeViolation[];
}

/**
 * The demo on emulated hardware (its blocks loaded, emitting every `emitMs`) and Chromium with a
 * desktop page, for one test file: started before its tests and stopped after them. Its fields
 * are set once the tests run.
 */
export function demoInBrowser(t: Test, emitMs = 1000) {
  const rig = {} as {
    sim: SimService;
    browser: Browser;
    page: Page;
    /** POST to the demo's block API (`blocks/read`...). */
    api: (p: string, body?: unknown) => ReturnType<typeof postJson>;
  };
  rig.api = (p, body) => postJson(`${rig.sim.cli.base}/edge-one/${p}`, body);
  t.before(async () => {
    rig.sim = await startSim([], emitMs);
    await loadDemoBlocks(rig.sim);
    rig.browser = await launchBrowser();
    rig.page = await desktopPage(rig.browser);
  });
  t.teardown(async () => {
    await rig.browser?.close().catch(() => undefined);
    await rig.sim?.stop();
    if (rig.sim) removeDir(rig.sim.dataDir);
  });
  return rig;
}
