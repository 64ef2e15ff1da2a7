// The I2C part of the bus section: the read-only identity probes discovery uses (the chip
// registry's), on each bus the service would use (never an HDMI display bus), and each sensor
// found measured N times through its real driver, counting what failed and why (CRC, no
// acknowledge, a chip that reset).
import { I2C_SENSOR_CHIPS } from '../../drivers/i2c/chips.js';
import type { I2cSensorChipDef } from '../../drivers/i2c/chip-def.js';
import { probeChips } from '../../drivers/i2c/probe.js';
import { errorCode, hex2, type I2cSensorErrorCode } from '../../drivers/i2c/sensor-common.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import { section, type Section } from './report.js';

const SPREAD_WARN_C = 1;

export async function i2cSection(name: string, bus: I2cBus, reads: number, step: () => void): Promise<Section> {
  const s = section(`I2C bus ${name}`);
  const found: Array<{ address: number; chip: I2cSensorChipDef }> = [];
  try {
    for (const f of await probeChips(bus, { chips: I2C_SENSOR_CHIPS })) {
      if (f.status === 'found' && f.chip?.role === 'sensor') found.push({ address: f.address, chip: f.chip });
      else if (f.status === 'claimed')
        s.findings.push({
          verdict: 'info',
          text: `${hex2(f.address)} is held by a kernel driver (UU in i2cdetect): left alone`,
        });
      else if (f.detail) s.findings.push({ verdict: 'info', text: `${hex2(f.address)}: ${f.detail}` });
    }
  } catch (e) {
    s.findings.push({
      verdict: 'fail',
      text: `the bus failed while probing: ${(e as Error).message}`,
      see: 'docs/hardware.md#i2c-sensors',
    });
    return s;
  }
  s.facts.push(['sensors', found.map((f) => `${hex2(f.address)} ${f.chip.name}`).join(', ') || 'none']);
  s.parts = [];
  for (const { address, chip } of found) {
    const part = section(`${chip.name} ${hex2(address)}`);
    const driver = chip.create(bus, address, {});
    const failures = new Map<I2cSensorErrorCode, number>();
    const temps: number[] = [];
    try {
      await driver.init();
      for (let i = 0; i < reads; i++) {
        step();
        try {
          const m = await driver.measure();
          if (m.temperature !== undefined) temps.push(m.temperature);
        } catch (e) {
          failures.set(errorCode(e), (failures.get(errorCode(e)) ?? 0) + 1);
        }
      }
    } catch (e) {
      part.findings.push({ verdict: 'fail', text: `cannot set it up: ${(e as Error).message}` });
      s.parts.push(part);
      continue;
    }
    const failed = [...failures.values()].reduce((a, b) => a + b, 0);
    part.facts.push([
      'reads',
      `${reads}: ${reads - failed} good${[...failures].map(([code, n]) => `, ${n} ${code}`).join('')}`,
    ]);
    if (temps.length)
      part.facts.push([
        'values',
        `${Math.min(...temps).toFixed(2)} .. ${Math.max(...temps).toFixed(2)} degC (spread ${(Math.max(...temps) - Math.min(...temps)).toFixed(2)} degC)`,
      ]);
    if (failed)
      part.findings.push({
        verdict: failed === reads ? 'fail' : 'warn',
        text: `${failed} of ${reads} reads failed (${[...failures].map(([code, n]) => `${n} ${code}`).join(', ')}): check its wiring (SDA, SCL, 3.3 V, GND) and the cable length`,
        see: 'docs/hardware.md#i2c-sensors',
      });
    else if (temps.length > 1 && Math.max(...temps) - Math.min(...temps) > SPREAD_WARN_C)
      part.findings.push({
        verdict: 'warn',
        text: `the values spread over more than ${SPREAD_WARN_C} degC in ${reads} reads`,
      });
    else part.findings.push({ verdict: 'ok', text: `${reads} good reads` });
    s.parts.push(part);
  }
  return s;
}
