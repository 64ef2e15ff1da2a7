// The emulated hardware of --hardware sim: its config (the built-in demo or a JSON file) and the
// emulation on it. Its own module so that only sim mode loads the emulation.
import { parseJsonFile } from '../shared/json.js';
import { unreadableFile } from '../shared/unreadable.js';
import { readFile } from 'node:fs/promises';
import { DEMO_SIM_CONFIG } from '../../drivers/sim/sim-demo.js';
import { parseSimConfig, SimConfigError, type SimConfig } from '../../drivers/sim/sim-config.js';
import { SimHardware } from '../../drivers/sim/sim-hardware.js';
import { ConfigError } from '../shared/errors.js';
import type { Clock } from '../runtime/clock.js';

export async function openSim(
  file: string | undefined,
  clock: Pick<Clock, 'now'>,
  options: { w1RefreshMs?: number } = {},
): Promise<SimHardware> {
  return SimHardware.create(await loadSimConfig(file), { now: () => clock.now(), ...options });
}

async function loadSimConfig(file: string | undefined): Promise<SimConfig> {
  if (file === undefined) return parseSimConfig(DEMO_SIM_CONFIG);
  let text: Buffer;
  try {
    text = await readFile(file);
  } catch (e) {
    throw new ConfigError('simConfig', unreadableFile(file, file, e, 'sim config file'));
  }
  const parsed = parseJsonFile(text, file);
  if (!parsed.ok) throw new ConfigError('simConfig', parsed.reason);
  const json = parsed.value;
  try {
    return parseSimConfig(json);
  } catch (e) {
    if (e instanceof SimConfigError) throw new ConfigError('simConfig', `${file}: ${e.message}`);
    throw e;
  }
}
