// Every I2C chip edgeblocks drives: one definition each (chip-def.ts says what one holds). A new
// chip is its driver file, its emulator (drivers/sim/), one definition here, its tests and its
// section in docs/hardware.md. Order matters where chips share addresses: identify runs in this
// order and the first chip that says yes is the one found (an SHT4x before an SHT3x at 0x44, a
// TMP117 before an ADS1115 at 0x48: the ADS1115's check would not take a TMP117 for one, but
// the TMP117's device ID register is the sharper test).
import { ADS1115_ADDRESSES, Ads1x15, looksLikeAds1x15, readAdsConfig } from './ads1115.js';
import { Bme280, BME280_ADDRESSES, BME280_CHIP_ID, BME280_REG, BMP280_CHIP_IDS } from './bme280.js';
import type { I2cChipDef, I2cIoChipDef, I2cSensorChipDef, Identity } from './chip-def.js';
import { expanderOffEitherWay, identifyExpander, Mcp23017, MCP23017_ADDRESSES } from './mcp23017.js';
import { Mcp9600, MCP9600_ADDRESSES, readMcp9600Id, type ThermocoupleType } from './mcp9600.js';
import { isPca9685, Pca9685, PCA9685_ADDRESSES, PCA9685_MAX_HZ, PCA9685_MIN_HZ } from './pca9685.js';
import { Pcf8574, PCF8574_ADDRESSES, PCF8574A_ADDRESSES } from './pcf8574.js';
import { errorCode, readRegisters } from './sensor-common.js';
import { readSht3xStatus, Sht3x } from './sht3x.js';
import { readSht4xSerial, Sht4x, SHT4X_ADDRESSES } from './sht4x.js';
import { isTmp117, Tmp117, TMP117_ADDRESSES } from './tmp117.js';
import type { I2cBus } from './types.js';

/** A check that reads: false when the reads fail, except for what stops probing (a kernel driver holds the address, the bus is gone). */
const answers = (p: Promise<unknown>) =>
  p.then(
    () => true,
    (e) => (errorCode(e) === 'CLAIMED' || errorCode(e) === 'BUS' ? Promise.reject(e) : false),
  );
const readsAs = (p: Promise<boolean>) => p.catch((e) => (errorCode(e) === 'NACK' ? false : Promise.reject(e)));

const boschId = async (bus: I2cBus, address: number) =>
  (
    await readRegisters(bus, address, BME280_REG.CHIP_ID, 1).catch((e) =>
      errorCode(e) === 'NACK' ? [0] : Promise.reject(e),
    )
  )[0]!;

const expander =
  (kind: 'mcp23017' | 'pcf8574') =>
  async (bus: I2cBus, address: number): Promise<Identity> => {
    const found = await identifyExpander(bus, address);
    return found === 'ambiguous' ? 'ambiguous' : found === kind;
  };

const sensors: I2cSensorChipDef[] = [
  {
    name: 'SHT4X',
    title: 'Sensirion SHT40/41/45 temperature and humidity',
    role: 'sensor',
    kind: 'environment',
    code: 0,
    measures: ['temperature', 'humidity'],
    addresses: SHT4X_ADDRESSES,
    identify: (bus, address) => answers(readSht4xSerial(bus, address)),
    create: (bus, address, o) => new Sht4x(bus, address, o),
    emulator: async () => {
      const { Sht4xSim } = await import('../sim/sht4x-sim.js');
      return (s) => Object.assign(new Sht4xSim(s.address), { humidity: s.humidity });
    },
  },
  {
    name: 'SHT3X',
    title: 'Sensirion SHT30/31/35 temperature and humidity',
    role: 'sensor',
    kind: 'environment',
    code: 1,
    measures: ['temperature', 'humidity'],
    addresses: [0x44, 0x45],
    identify: (bus, address) => answers(readSht3xStatus(bus, address)),
    create: (bus, address, o) => new Sht3x(bus, address, o),
    emulator: async () => {
      const { Sht3xSim } = await import('../sim/sht3x-sim.js');
      return (s) => Object.assign(new Sht3xSim(s.address), { humidity: s.humidity });
    },
  },
  {
    name: 'BME280',
    title: 'Bosch BME280 temperature, humidity and pressure',
    role: 'sensor',
    kind: 'environment',
    code: 2,
    measures: ['temperature', 'humidity', 'pressure'],
    addresses: BME280_ADDRESSES,
    identify: async (bus, address) => (await boschId(bus, address)) === BME280_CHIP_ID,
    create: (bus, address, o) => new Bme280(bus, address, 'BME280', o),
    emulator: async () => {
      const { Bme280Sim } = await import('../sim/bme280-sim.js');
      return (s) => Object.assign(new Bme280Sim(s.address, 'BME280'), { humidity: s.humidity, pressure: s.pressure });
    },
  },
  {
    name: 'BMP280',
    title: 'Bosch BMP280 temperature and pressure',
    role: 'sensor',
    kind: 'environment',
    code: 3,
    measures: ['temperature', 'pressure'],
    addresses: BME280_ADDRESSES,
    identify: async (bus, address) => (BMP280_CHIP_IDS as readonly number[]).includes(await boschId(bus, address)),
    create: (bus, address, o) => new Bme280(bus, address, 'BMP280', o),
    emulator: async () => {
      const { Bme280Sim } = await import('../sim/bme280-sim.js');
      return (s) => Object.assign(new Bme280Sim(s.address, 'BMP280'), { pressure: s.pressure });
    },
  },
  {
    name: 'TMP117',
    title: 'TI TMP117 ±0.1 °C temperature (a reference probe)',
    role: 'sensor',
    kind: 'environment',
    code: 4,
    measures: ['temperature'],
    addresses: TMP117_ADDRESSES,
    identify: (bus, address) => readsAs(isTmp117(bus, address)),
    create: (bus, address) => new Tmp117(bus, address),
    emulator: async () => {
      const { Tmp117Sim } = await import('../sim/tmp117-sim.js');
      return (s, now) => new Tmp117Sim(s.address, now);
    },
  },
  {
    name: 'ADS1115',
    title: 'TI ADS1115 16-bit 4-input ADC (pressure transducers, 4-20 mA)',
    role: 'sensor',
    kind: 'adc',
    code: 0,
    measures: ['volts'],
    addresses: ADS1115_ADDRESSES,
    // The ADS1015 reads the same: one found is proposed as an ADS1115 (set the chip by hand).
    identify: (bus, address) => readsAs(readAdsConfig(bus, address).then(looksLikeAds1x15)),
    create: (bus, address, o) => new Ads1x15(bus, address, 'ADS1115', o),
    emulator: async () => {
      const { Ads1115Sim } = await import('../sim/ads1115-sim.js');
      return (s) => adc(new Ads1115Sim(s.address, 'ADS1115'), s.inputs);
    },
  },
  {
    name: 'ADS1015',
    title: 'TI ADS1015 12-bit 4-input ADC',
    role: 'sensor',
    kind: 'adc',
    code: 1,
    measures: ['volts'],
    addresses: ADS1115_ADDRESSES,
    create: (bus, address, o) => new Ads1x15(bus, address, 'ADS1015', o),
    emulator: async () => {
      const { Ads1115Sim } = await import('../sim/ads1115-sim.js');
      return (s) => adc(new Ads1115Sim(s.address, 'ADS1015'), s.inputs);
    },
  },
  {
    name: 'MCP9600',
    title: 'Microchip MCP9600/MCP9601 thermocouple converter (kettles, HERMS)',
    role: 'sensor',
    kind: 'thermocouple',
    code: 0,
    measures: ['temperature', 'coldJunction'],
    addresses: MCP9600_ADDRESSES,
    identify: async (bus, address) =>
      (await readMcp9600Id(bus, address).catch((e) => (errorCode(e) === 'NACK' ? null : Promise.reject(e)))) !== null,
    create: (bus, address, o) => new Mcp9600(bus, address, (o.thermocouple ?? 'K') as ThermocoupleType),
    emulator: async () => {
      const { Mcp9600Sim } = await import('../sim/mcp9600-sim.js');
      return (s) => new Mcp9600Sim(s.address);
    },
  },
];

function adc<T extends { inputs: number[] }>(model: T, inputs: number[]): T {
  model.inputs.splice(0, model.inputs.length, ...inputs);
  return model;
}

const io: I2cIoChipDef[] = [
  {
    name: 'MCP23017',
    title: 'Microchip MCP23017 16-channel IO expander (channel 1-8 = GPA0-7, 9-16 = GPB0-7)',
    role: 'io',
    kind: 'expander',
    channels: 16,
    activeLowDefault: false,
    addresses: MCP23017_ADDRESSES,
    identify: expander('mcp23017'),
    disambiguate: async (bus, address) => void (await expanderOffEitherWay(bus, address)),
    create: (bus, address) => new Mcp23017(bus, address),
    emulator: async () => {
      const { SimMcp23017 } = await import('../sim/mcp23017-sim.js');
      return (s) => {
        const chip = new SimMcp23017(s.address);
        for (const [ch, level] of Object.entries(s.inputs)) if (level === 0) chip.external &= ~(1 << (Number(ch) - 1));
        return chip;
      };
    },
  },
  {
    name: 'PCF8574',
    title: 'NXP/TI PCF8574 and PCF8574A 8-channel quasi-bidirectional IO expander',
    role: 'io',
    kind: 'expander',
    channels: 8,
    activeLowDefault: true,
    addresses: [...PCF8574_ADDRESSES, ...PCF8574A_ADDRESSES],
    // At 0x38-0x3F only a PCF8574A can be: a plain read is all it takes (and all it gets).
    identify: async (bus, address) =>
      (PCF8574A_ADDRESSES as readonly number[]).includes(address)
        ? (await bus.receiveByte(address), true)
        : expander('pcf8574')(bus, address),
    disambiguate: async (bus, address) => void (await expanderOffEitherWay(bus, address)),
    create: (bus, address) => new Pcf8574(bus, address),
    emulator: async () => {
      const { SimPcf8574 } = await import('../sim/pcf8574-sim.js');
      return (s) => {
        const chip = new SimPcf8574(s.address);
        for (const [ch, level] of Object.entries(s.inputs)) if (level === 0) chip.external &= ~(1 << (Number(ch) - 1));
        return chip;
      };
    },
  },
  {
    name: 'PCA9685',
    title: 'NXP PCA9685 16-channel 12-bit PWM driver (SSRs, fans)',
    role: 'io',
    kind: 'pwm',
    channels: 16,
    frequency: { min: PCA9685_MIN_HZ, max: PCA9685_MAX_HZ },
    addresses: PCA9685_ADDRESSES,
    identify: isPca9685,
    create: (bus, address) => new Pca9685(bus, address),
    emulator: async () => {
      const { SimPca9685 } = await import('../sim/pca9685-sim.js');
      return (s) => new SimPca9685(s.address);
    },
  },
];

export const I2C_CHIPS: readonly I2cChipDef[] = [...sensors, ...io];
export const I2C_SENSOR_CHIPS: readonly I2cSensorChipDef[] = sensors;
export const I2C_IO_CHIPS: readonly I2cIoChipDef[] = io;

export function i2cChip(name: string): I2cChipDef | undefined {
  return I2C_CHIPS.find((c) => c.name === name);
}

export function i2cSensorChip(name: string): I2cSensorChipDef | undefined {
  return sensors.find((c) => c.name === name);
}

export function i2cIoChip(name: string): I2cIoChipDef | undefined {
  return io.find((c) => c.name === name);
}

/** `{SHT4X: 0, SHT3X: 1, ...}`: the sensor chips of one kind by their stored code (a block's chip enum). */
export function chipCodes(kind: I2cSensorChipDef['kind']): Record<string, number> {
  return Object.fromEntries(sensors.filter((c) => c.kind === kind).map((c) => [c.name, c.code]));
}
