// DS2480B serial 1-Wire line driver (DS9097U-style adapters) over a SerialLink.
//
// The chip has a command mode (reset, single bit, search accelerator control, configuration)
// and a data mode (each byte written is sent on the 1-Wire bus and the sampled byte comes
// back). 0xE1 switches to data mode, 0xE3 to command mode; a data byte 0xE3 is sent twice.
// The first byte after power-up or BREAK only calibrates the chip's timing and gets no reply.
import { ProtocolBus } from './protocol-bus.js';
import { SerialLock } from './serial-lock.js';
import { openSerialLink, type OpenSerialLinkOptions, type SerialLink } from './serial-link.js';
import { BusShortError, OneWireError, type OneWireMaster, type SearchPassResult, type TripletResult } from './types.js';

export {
  openSerialLink,
  loadSerialPort,
  BufferedLink,
  SerialPortUnavailableError,
  type SerialLink,
} from './serial-link.js';

export const DS2480B = {
  DATA_MODE: 0xe1,
  COMMAND_MODE: 0xe3,
  RESET: 0xc1, // standard speed
  BIT_WRITE0: 0x81,
  BIT_READ: 0x91, // write-1 / read slot
  ACCELERATOR_ON: 0xb1,
  ACCELERATOR_OFF: 0xa1,
  // Configuration writes (parameter code in bits 6-4, value in bits 3-1): the reply is the byte with bit 0 cleared.
  CONFIG_SLEW_1V37: 0x17,
  CONFIG_WRITE1_LOW_10US: 0x45,
  CONFIG_SAMPLE_OFFSET_8US: 0x5b,
} as const;

const CONFIG_SEQUENCE = [DS2480B.CONFIG_SLEW_1V37, DS2480B.CONFIG_WRITE1_LOW_10US, DS2480B.CONFIG_SAMPLE_OFFSET_8US];

export interface Ds2480bOptions {
  /** Reply timeout per exchange. Default 250 ms. */
  timeoutMs?: number;
  /** Quiet time after the calibration byte before stale input is discarded. Default 20 ms. */
  settleMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class Ds2480bMaster implements OneWireMaster {
  readonly name: string;
  readonly stats = { inits: 0, timeouts: 0, protocolErrors: 0 };
  private readonly lock = new SerialLock();
  private readonly timeoutMs: number;
  private readonly settleMs: number;
  private mode: 'command' | 'data' = 'command';
  private ready = false;

  constructor(
    readonly link: SerialLink,
    options: Ds2480bOptions = {},
  ) {
    this.name = `ds2480b-${link.path}`;
    this.timeoutMs = options.timeoutMs ?? 250;
    this.settleMs = options.settleMs ?? 20;
  }

  /** Calibrates and configures the chip; done automatically before the first operation and after errors. */
  init(): Promise<void> {
    return this.lock.run(() => this.initUnlocked());
  }

  private async configure(): Promise<boolean> {
    await this.link.write(CONFIG_SEQUENCE);
    const replies = await this.link.read(CONFIG_SEQUENCE.length, this.timeoutMs).catch(() => null);
    if (!replies || CONFIG_SEQUENCE.some((c, i) => replies[i] !== (c & 0xfe))) return false;
    await this.link.write([DS2480B.BIT_READ]);
    const bit = await this.link.read(1, this.timeoutMs).catch(() => null);
    return !!bit && (bit[0]! & 0xfc) === (DS2480B.BIT_READ & 0xfc);
  }

  private async calibrate(): Promise<void> {
    await this.link.write([DS2480B.RESET]);
    await sleep(this.settleMs);
    await this.link.discardInput();
  }

  private async initUnlocked(): Promise<void> {
    this.stats.inits++;
    this.ready = false;
    await this.link.discardInput();
    if (this.link.sendBreak) await this.link.sendBreak().catch(() => undefined);
    await this.calibrate();
    this.mode = 'command';
    if (!(await this.configure())) {
      // The chip may have been left in data mode by an earlier run: leave it, then start over.
      await this.link.write([DS2480B.COMMAND_MODE]);
      await sleep(this.settleMs);
      await this.calibrate();
      if (!(await this.configure())) {
        throw new OneWireError('IO', `${this.name}: no DS2480B answering (configuration replies wrong)`);
      }
    }
    await this.link.discardInput();
    this.ready = true;
  }

  /** Runs one exchange; any failure forces a re-initialisation before the next one. */
  private op<T>(job: () => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      if (!this.ready) await this.initUnlocked();
      try {
        return await job();
      } catch (e) {
        if (e instanceof OneWireError && e.code === 'SHORT') throw e;
        this.ready = false;
        if (e instanceof OneWireError && e.code === 'TIMEOUT') this.stats.timeouts++;
        else this.stats.protocolErrors++;
        throw e;
      }
    });
  }

  private toCommand(): number[] {
    if (this.mode === 'command') return [];
    this.mode = 'command';
    return [DS2480B.COMMAND_MODE];
  }

  private toData(): number[] {
    if (this.mode === 'data') return [];
    this.mode = 'data';
    return [DS2480B.DATA_MODE];
  }

  private async exchange(bytes: number[], replyCount: number): Promise<Uint8Array> {
    await this.link.write(bytes);
    if (replyCount === 0) return new Uint8Array(0);
    return this.link.read(replyCount, this.timeoutMs);
  }

  private async resetUnlocked(): Promise<boolean> {
    const [r] = await this.exchange([...this.toCommand(), DS2480B.RESET], 1);
    if ((r! & 0xdc) !== 0xcc) throw new OneWireError('IO', `${this.name}: bad reset reply 0x${r!.toString(16)}`);
    switch (r! & 0x03) {
      case 0x00:
        throw new BusShortError(`${this.name}: 1-Wire short detected`);
      case 0x03:
        return false;
      default:
        return true; // presence (0x01) or alarming presence (0x02)
    }
  }

  reset(): Promise<boolean> {
    return this.op(() => this.resetUnlocked());
  }

  private async bitsUnlocked(bits: Array<0 | 1>): Promise<Array<0 | 1>> {
    const cmds = bits.map((b) => (b ? DS2480B.BIT_READ : DS2480B.BIT_WRITE0));
    const replies = await this.exchange([...this.toCommand(), ...cmds], cmds.length);
    return cmds.map((c, i) => {
      const r = replies[i]!;
      if ((r & 0xfc) !== (c & 0xfc)) throw new OneWireError('IO', `${this.name}: bad bit reply 0x${r.toString(16)}`);
      return (r & 0x01) as 0 | 1;
    });
  }

  async writeBit(bit: 0 | 1): Promise<void> {
    await this.op(() => this.bitsUnlocked([bit]));
  }

  readBit(): Promise<0 | 1> {
    return this.op(async () => (await this.bitsUnlocked([1]))[0]!);
  }

  private async byteUnlocked(byte: number): Promise<number> {
    const b = byte & 0xff;
    const out = [...this.toData(), b];
    if (b === DS2480B.COMMAND_MODE) out.push(b); // escape a literal 0xE3
    const [r] = await this.exchange(out, 1);
    return r!;
  }

  writeByte(byte: number): Promise<void> {
    return this.op(async () => {
      const echo = await this.byteUnlocked(byte);
      if (echo !== (byte & 0xff)) {
        throw new OneWireError(
          'IO',
          `${this.name}: wrote 0x${(byte & 0xff).toString(16)}, bus read back 0x${echo.toString(16)}`,
        );
      }
    });
  }

  readByte(): Promise<number> {
    return this.op(() => this.byteUnlocked(0xff));
  }

  triplet(direction: 0 | 1): Promise<TripletResult> {
    return this.op(async () => {
      const [id, cmp] = await this.bitsUnlocked([1, 1]);
      const dir: 0 | 1 = id !== cmp ? id! : id === 1 ? 1 : direction;
      await this.bitsUnlocked([dir]);
      return { id: id!, cmp: cmp!, dir };
    });
  }

  /**
   * One search pass with the search accelerator: 16 bytes out, each ROM bit i encoded as
   * (placeholder at bit 2i, chosen direction at bit 2i+1); 16 bytes back with the conflict
   * flag at 2i and the direction taken at 2i+1.
   */
  searchPass(command: number, directions: Uint8Array): Promise<SearchPassResult | null> {
    return this.op(async () => {
      if (!(await this.resetUnlocked())) return null;
      const echo = await this.byteUnlocked(command);
      if (echo !== command) throw new OneWireError('IO', `${this.name}: search command echo 0x${echo.toString(16)}`);
      const request = new Array<number>(16).fill(0);
      for (let i = 0; i < 64; i++) if (directions[i]) request[i >> 2]! |= 1 << ((i & 3) * 2 + 1);
      // Accelerator on (command mode), back to data mode, 16 bytes; none of them can be 0xE3.
      const out = [...this.toCommand(), DS2480B.ACCELERATOR_ON, DS2480B.DATA_MODE, ...request];
      this.mode = 'data';
      const reply = await this.exchange(out, 16);
      await this.exchange([...this.toCommand(), DS2480B.ACCELERATOR_OFF], 0);
      const bits = new Uint8Array(64);
      const conflicts = new Uint8Array(64);
      for (let i = 0; i < 64; i++) {
        const shift = (i & 3) * 2;
        conflicts[i] = (reply[i >> 2]! >> shift) & 1;
        bits[i] = (reply[i >> 2]! >> (shift + 1)) & 1;
      }
      return { bits, conflicts };
    });
  }

  async close(): Promise<void> {
    await this.lock.run(() => this.link.close());
  }
}

/** Opens a DS2480B adapter on a serial device and returns a ready OneWireBus. */
export async function openDs2480bBus(
  path: string,
  options: Ds2480bOptions & OpenSerialLinkOptions = {},
): Promise<ProtocolBus> {
  const link = await openSerialLink(path, options);
  const master = new Ds2480bMaster(link, options);
  try {
    await master.init();
  } catch (e) {
    await link.close().catch(() => undefined);
    throw e;
  }
  return new ProtocolBus(master, { kind: 'ds2480b' });
}
