// Debian's Chromium driven by playwright-core (no browser download), and a sim instance of the
// built CLI for the page to talk to. Both are killed on every path by the callers' teardown.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
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

/** What the graph holds now (window.__graphPlotted, web/src/Chart.tsx). */
export interface Plotted {
  fields: string[];
  cols: [number[], ...Array<Array<number | null>>];
}

/** A service on emulated hardware and Chromium with a desktop page, for one test file. */
export interface BrowserRig {
  sim: SimService;
  browser: Browser;
  page: Page;
  /** POST to the service's block API (`blocks/read`...). */
  api: (p: string, body?: unknown) => ReturnType<typeof postJson>;
  /** The temperature unit switched by another client (the datastore document), seen by the page's event stream. */
  unitElsewhere: (temperature: 'degC' | 'degF') => Promise<void>;
  /** Waits until the history has `points` points (1 unless said) of every field in `fields` (the last hour). */
  historyHas: (fields: string[], points?: number) => Promise<void>;
  /** Waits (20 s at most) until the history lists `field` for the last hour; whether it does. */
  recorded: (field: string) => Promise<boolean>;
  /** Waits (30 s at most) until the graph has drawn a point of `field` (window.__graphPlotted). */
  plotted: (field: string) => Promise<void>;
  /** The overview's card of block `id` (any characters in the name). */
  card: (id: string) => Locator;
  /** Types `text` in the card's number field (`setting-<id>`: a setpoint's, a PWM's) and presses its Set. */
  setOnCard: (id: string, text: string) => Promise<void>;
  /** What the card of block `id` says under its controls (its one answer line): the texts shown now. */
  cardSays: (id: string) => Promise<string[]>;
}

export interface RigOptions {
  /** Flags added to the CLI's; a function is called when the service starts (after the file's earlier `before`). */
  extra?: string[] | (() => string[]);
  /** How often the service emits, in ms (1000 unless said). */
  emitMs?: number;
  /** Added to the service's environment. */
  env?: NodeJS.ProcessEnv;
  /** Loads the demo's blocks (scripts/demo-blocks.json) unless false. */
  demo?: boolean;
  /** Runs on the started service before the browser starts (the blocks a test needs). */
  setup?: (rig: BrowserRig) => Promise<void>;
}

/**
 * A service on emulated hardware in a fresh data dir (with the demo's blocks unless `demo: false`)
 * and Chromium with a desktop page, for one test file: started before its tests and stopped after
 * them (the browser, then the service, then its data dir). Its fields are set once the tests run.
 */
export function simInBrowser(t: Test, opts: RigOptions = {}): BrowserRig {
  const rig = {} as BrowserRig;
  rig.api = (p, body) => postJson(`${rig.sim.cli.base}/edge-one/${p}`, body);
  rig.unitElsewhere = async (temperature) => {
    const set = await postJson(`${rig.sim.cli.base}/history/datastore/set`, {
      value: { namespace: 'edge-one', id: 'units', temperature },
    });
    if (set.status !== 200) throw new Error(`units not set: ${JSON.stringify(set.body)}`);
  };
  rig.historyHas = async (fields, points = 1) => {
    for (let i = 0; i < 120; i++) {
      const res = await fetch(`${rig.sim.cli.base}/history/timeseries/ranges`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fields, duration: '1h' }),
      });
      const ranges = (await res.json()) as Array<{ values: unknown[] }>;
      if (ranges.length === fields.length && ranges.every((r) => r.values.length >= points)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`the history never had ${points} point(s) of ${fields.join(', ')}`);
  };
  rig.recorded = async (field) => {
    const listed = async () =>
      ((await postJson(`${rig.sim.cli.base}/history/timeseries/fields`, { duration: '1h' })).body as string[]).includes(
        field,
      );
    for (let i = 0; i < 100; i++) {
      if (await listed()) return true;
      await new Promise((r) => setTimeout(r, 200));
    }
    return listed();
  };
  rig.plotted = async (field) => {
    await rig.page.waitForFunction(
      (f) => {
        const p = window.__graphPlotted as Plotted | undefined;
        const i = p ? p.fields.indexOf(f) : -1;
        return i >= 0 && p!.cols[i + 1]!.some((v) => v !== null);
      },
      field,
      { timeout: limit(30_000) },
    );
  };
  rig.card = (id) => rig.page.locator(`section.card[data-block=${JSON.stringify(id)}]`);
  rig.setOnCard = async (id, text) => {
    await rig.card(id).getByTestId(`setting-${id}`).fill(text);
    await rig.card(id).getByRole('button', { name: 'Set', exact: true }).click();
  };
  rig.cardSays = (id) => rig.card(id).getByRole('status').allInnerTexts();
  t.before(async () => {
    const extra = typeof opts.extra === 'function' ? opts.extra() : (opts.extra ?? []);
    rig.sim = await startSim(extra, opts.emitMs ?? 1000, undefined, opts.env);
    if (opts.demo !== false) await loadDemoBlocks(rig.sim);
    await opts.setup?.(rig);
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

/** The demo on emulated hardware (its blocks loaded, emitting every `emitMs`) and Chromium with a desktop page. */
export function demoInBrowser(t: Test, emitMs = 1000): BrowserRig {
  return simInBrowser(t, { emitMs });
}
