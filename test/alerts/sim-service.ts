// The built CLI in sim mode with an alerts config, and the sensor steps the alert tests share.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postJson, startCli, type RunningCli } from '../helpers/cli.js';
import type { Owner } from '../helpers/children.js';
import { until } from './receivers.js';

export const BEER = 'beer';

/** Alert timings for tests: checks every 200 ms, retries from 200 ms backing off to 800 ms. */
export const FAST_ALERTS = { checkIntervalMs: 200, retryBaseMs: 200, retryMaxMs: 800 };
export const BEER_ADDRESS = '2801b00000000066';

export function writeConfig(
  alerts: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): { dataDir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alerts-'));
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ hardware: 'sim', history: 'off', emitInterval: 1000, ...extra, alerts }));
  return { dataDir: path.join(dir, 'data'), file };
}

export async function startService(
  cfg: { dataDir: string; file: string },
  owner: Owner,
  args: string[] = [],
): Promise<RunningCli & { api: string }> {
  const cli = await startCli(
    ['--config', cfg.file, '--data-dir', cfg.dataDir, '--mqtt-port', '0', ...args],
    { EDGEBLOCKS_LOG_FORMAT: 'json' },
    owner,
  );
  return { ...cli, api: `${cli.base}/edge-one` };
}

async function blocks(api: string): Promise<any[]> {
  return (await postJson(`${api}/blocks/all/read`)).body;
}

/** Discover the sim's devices (once per data dir) and wait until the beer sensor reads a value. */
export async function beerSensor(api: string, limitMs: number): Promise<{ id: string; nid: number }> {
  await postJson(`${api}/blocks/discover`);
  return until('beer sensor reading', limitMs, async () => {
    const b = (await blocks(api)).find((x) => x.data.address === BEER_ADDRESS);
    return b && b.data.value.value !== null ? { id: b.id as string, nid: b.nid as number } : undefined;
  });
}

export async function sensorValue(api: string, id: string): Promise<number | null> {
  return (await postJson(`${api}/blocks/read`, { id })).body.data.value.value;
}

export async function plug(api: string, plugged: boolean): Promise<void> {
  const res = await postJson(`${api}/sim/devices/${BEER}/${plugged ? 'plug' : 'unplug'}`);
  if (res.status !== 200) throw new Error(`sim ${plugged ? 'plug' : 'unplug'}: ${res.status}`);
}
