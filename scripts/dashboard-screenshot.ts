// Takes docs/img/dashboard.png: the demo's overview in Debian's Chromium (playwright-core), after
// discovery (the found sensors named, but one) and a few emissions, so the cards show live values. Run after `npm run build` and
// `npm run build:web`: `node dist/scripts/dashboard-screenshot.js`.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, 'docs', 'img', 'dashboard.png');
const dataDir = mkdtempSync(path.join(tmpdir(), 'eb-shot-'));
const demo = spawn(
  process.execPath,
  [
    path.join(ROOT, 'scripts', 'demo.js'),
    '--port',
    '0',
    '--https-port',
    '0',
    '--mqtt-port',
    '0',
    '--emit-interval',
    '1000',
    '--data-dir',
    dataDir,
    '--log-format',
    'json',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
try {
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    demo.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /http listening on (?:https?:\/\/)?[^:\s]*:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    demo.once('exit', (code) => reject(new Error(`demo exited with ${code}`)));
  });
  const api = (path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${port}/edge-one/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
  await api('blocks/discover');
  // Named as a brewer would, but one: the kettle's thermocouple still asks for its name.
  for (const [existing, desired] of [
    ['Sensor c001', 'Room Sensor'],
    ['Thermocouple f001', 'HLT Thermocouple'],
    ['BME280 0x76', 'Cellar Climate'],
  ])
    await api('blocks/rename', { existing, desired });
  await new Promise((r) => setTimeout(r, 6000));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
    headless: true,
  });
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 }, deviceScaleFactor: 1 });
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForSelector('.card .big');
  await page.waitForTimeout(2500);
  await page.screenshot({ path: OUT });
  await browser.close();
  console.log(`${OUT}: ${statSync(OUT).size} bytes`);
} finally {
  demo.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
