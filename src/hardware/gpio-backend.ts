// The GPIO backend on a Linux board: the onoff character-device backend where it loads, plain
// sysfs otherwise. The hardware layer and the doctor both use it.
import { OnoffGpioBackend } from '../../drivers/gpio/onoff-backend.js';
import { SysfsGpioBackend } from '../../drivers/gpio/sysfs-backend.js';
import type { GpioBackend } from '../../drivers/gpio/types.js';
import type { Logger } from '../log.js';

export async function linuxGpioBackend(label: string | undefined, log: Logger): Promise<GpioBackend | null> {
  try {
    return await OnoffGpioBackend.create({ label });
  } catch (e) {
    log.debug({ err: e }, 'onoff GPIO backend unavailable; trying plain sysfs');
  }
  try {
    return await SysfsGpioBackend.detect({ label });
  } catch (e) {
    log.warn(`GPIO lines are configured but cannot be used: ${(e as Error).message}`);
    return null;
  }
}
