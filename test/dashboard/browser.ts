// Debian's Chromium driven by playwright-core (no browser download), and a sim instance of the
// built CLI for the page to talk to. Both are killed on every path by the callers' teardown.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startCli, type RunningCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: limit(60_000) });
}

export interface SimService {
  cli: RunningCli;
  dataDir: string;
  stop(): Promise<void>;
}

/** The built CLI on emulated hardware, in a fresh data dir, emitting every `emitMs`. */
export async function startSim(extra: string[] = [], emitMs = 1000, dataDir = mkdtempSync(path.join(os.tmpdir(), 'eb-dash-'))): Promise<SimService> {
  const cli = await startCli(['--hardware', 'sim', '--data-dir', dataDir, '--mqtt-port', '0', '--emit-interval', String(emitMs), ...extra], { EDGEBLOCKS_HISTORY_FLUSH_INTERVAL: '1000' });
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

export const removeDir = (dir: string) => rmSync(dir, { recursive: true, force: true });
