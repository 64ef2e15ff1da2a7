// The MCP23017, PCF8574 and PCA9685 drivers, the read-only probe, the bus queue and the
// failsafe's I2C half, against the register-level emulators.
import t from 'tap';
import { I2C_IO_CHIPS } from '../../drivers/i2c/chips.js';
import { probeChips, type ProbeOptions } from '../../drivers/i2c/probe.js';
import { classifyExpanderReads, Mcp23017 } from '../../drivers/i2c/mcp23017.js';
import { dutyOf, dutyRegisters, Pca9685, prescaleFor } from '../../drivers/i2c/pca9685.js';
import { QueuedI2cBus, WIRE_BITS } from '../../drivers/i2c/queue.js';
import type { I2cBus } from '../../drivers/i2c/types.js';

const probeI2cIo = (bus: I2cBus, o: ProbeOptions = {}) => probeChips(bus, { ...o, chips: I2C_IO_CHIPS });
import { SimI2cBus } from '../../drivers/sim/ds2482-sim.js';
import { SimMcp23017 } from '../../drivers/sim/mcp23017-sim.js';
import { SimPca9685 } from '../../drivers/sim/pca9685-sim.js';
import { SimPcf8574 } from '../../drivers/sim/pcf8574-sim.js';
import { i2cBusOutputsOff } from '../../src/failsafe/i2c.js';
import { sysfsClaimed } from '../../src/hardware/i2c-discovery.js';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A bus that records every transaction, so a test can see what was written where. */
function recording(inner: I2cBus) {
  const log: string[] = [];
  const bus: I2cBus = {
    name: inner.name,
    sendByte: (a, b) => (log.push(`send ${a}`), inner.sendByte(a, b)),
    writeByte: (a, c, b) => (log.push(`write ${a}`), inner.writeByte(a, c, b)),
    receiveByte: (a) => (log.push(`receive ${a}`), inner.receiveByte(a)),
    readByte: (a, c) => (log.push(`read ${a}`), inner.readByte(a, c)),
    i2cWrite: (a, bytes) => (log.push(`i2c write ${a}`), inner.i2cWrite(a, bytes)),
    i2cRead: (a, n) => (log.push(`i2c read ${a}`), inner.i2cRead(a, n)),
    scan: (f, l) => inner.scan(f, l),
    close: () => inner.close(),
  };
  return { bus, log };
}

function board() {
  const i2c = new SimI2cBus('t');
  const mcp = new SimMcp23017(0x20);
  const pcf = new SimPcf8574(0x21);
  const pcfA = new SimPcf8574(0x38);
  const pca = new SimPca9685(0x41);
  for (const c of [mcp, pcf, pcfA, pca]) i2c.attach(c.address, c);
  return { i2c, mcp, pcf, pcfA, pca };
}

t.test('the probe tells the chips apart by reads only, and leaves claimed addresses alone', async (t) => {
  const { i2c, mcp, pcf, pca } = board();
  // An MCP23017 in use (outputs on port A, latches set) and a PCF8574 with outputs low.
  mcp.writeByte(0x14, 0x05);
  mcp.writeByte(0x00, 0xf0);
  pcf.sendByte(0x0f);
  // Something else at a PCA9685 address (an ADC, say) and a chip bound to a kernel driver.
  i2c.attach(0x48, { sendByte() {}, writeByte() {}, receiveByte: () => 0, readByte: () => 0x85 });
  i2c.attach(0x42, new SimPca9685(0x42));
  i2c.faults.claimed.add(0x42);
  const mcpBefore = Buffer.from(mcp.regs);
  const pcaBefore = Buffer.from(pca.regs);
  const { bus, log } = recording(i2c);
  const found = await probeI2cIo(bus);
  t.same(
    found.map((c) => `${c.address.toString(16)}:${c.chip?.name ?? null}:${c.status}`),
    ['20:MCP23017:found', '21:PCF8574:found', '38:PCF8574:found', '41:PCA9685:found', '42:null:claimed'],
  );
  t.same(
    log.filter((l) => l.startsWith('send') || l.startsWith('write')),
    [],
    'nothing written',
  );
  t.same(
    log.filter((l) => /^read (3[2-9])$/.test(l)),
    [],
    'no command byte at 0x20-0x27 (a PCF8574 would take it as outputs)',
  );
  t.same(Buffer.from(mcp.regs), mcpBefore, 'MCP23017 registers unchanged');
  t.same(Buffer.from(pca.regs), pcaBefore, 'PCA9685 registers unchanged');
  t.equal(pcf.port, 0x0f, 'PCF8574 outputs unchanged');

  // Linux: the sysfs driver link says claimed before any transaction.
  const claimed = await probeI2cIo(i2c, { claimed: async (a) => a === 0x20 });
  t.match(claimed[0], { address: 0x20, status: 'claimed', chip: null });
});

t.test(
  'expander reads: a register file in any rotation is an MCP23017; one repeated value a PCF8574; all zeros cannot be told apart',
  async (t) => {
    const mcp = new SimMcp23017(0x20);
    const reads = Array.from({ length: 22 }, () => mcp.receiveByte());
    t.equal(classifyExpanderReads(reads), 'mcp23017', 'after reset');
    t.equal(classifyExpanderReads([...reads.slice(7), ...reads.slice(0, 7)]), 'mcp23017', 'rotated');
    t.equal(classifyExpanderReads(Array(22).fill(0xff)), 'pcf8574');
    t.equal(classifyExpanderReads(Array(22).fill(0)), 'ambiguous');
    t.equal(
      classifyExpanderReads(Array.from({ length: 22 }, (_, i) => i + 1)),
      null,
      'no two neighbours equal: no IOCON pair, no MCP23017',
    );
    const iocon1 = reads.slice();
    iocon1[10] = 0x01; // IOCON bit 0 is unimplemented and reads 0
    iocon1[11] = 0x01;
    iocon1[0] = 0x7f; // and no other rotation fits either
    iocon1[1] = 0x3e;
    t.equal(
      classifyExpanderReads(iocon1.map((v, i) => (i >= 2 && i < 10 ? 10 + i : i >= 12 ? 40 + i : v))),
      null,
      'IOCON bit 0 set: no MCP23017',
    );
  },
);

t.test(
  'MCP23017: only the bytes that differ are written; safeState puts every pin back to an input; NACKs reject',
  async (t) => {
    const i2c = new SimI2cBus('t');
    const sim = new SimMcp23017(0x20);
    i2c.attach(0x20, sim);
    const { bus, log } = recording(i2c);
    const mcp = new Mcp23017(bus, 0x20);
    await mcp.write(0x0001, 0xfffe, await mcp.read());
    t.equal(log.filter((l) => l.startsWith('write')).length, 2, 'OLATA and IODIRA only');
    t.equal(sim.pins() & 1, 1);
    log.length = 0;
    await mcp.write(0x0001, 0xfffe, await mcp.read());
    t.equal(log.filter((l) => l.startsWith('write')).length, 0, 'nothing when nothing differs');
    await mcp.safeState();
    t.equal(sim.iodir, 0xffff);
    sim.faults.nack = 1;
    await t.rejects(mcp.read(), /does not acknowledge/);
    t.same((await mcp.read()).iodir, 0xffff, 'next transaction fine');
  },
);

t.test('PCA9685: prescale, duty registers, configure and power-on reset', async (t) => {
  t.equal(prescaleFor(200), 30);
  t.equal(prescaleFor(1526), 3);
  t.equal(prescaleFor(24), 253);
  for (const d of [0, 0.5, 25, 40, 99.9, 100]) t.ok(Math.abs(dutyOf(dutyRegisters(d)) - d) <= 100 / 4096, `${d} %`);
  const i2c = new SimI2cBus('t');
  const sim = new SimPca9685(0x40);
  i2c.attach(0x40, sim);
  const pca = new Pca9685(i2c, 0x40);
  t.equal(await pca.configured(prescaleFor(500)), false, 'asleep after reset');
  await pca.configure(prescaleFor(500));
  t.equal(await pca.configured(prescaleFor(500)), true);
  t.ok(Math.abs(sim.frequency - 500) < 10);
  await pca.writeDuty(3, 62.5);
  t.equal(sim.duty(3), 62.5);
  t.equal(await pca.readDuty(3), 62.5);
  sim.powerOnReset();
  t.equal(await pca.configured(prescaleFor(500)), false, 'a reset shows as SLEEP');
  t.equal(sim.duty(3), 0);
});

t.test('the queue runs one transaction at a time per bus and counts the bits on the wire', async (t) => {
  let active = 0;
  let most = 0;
  const slow = async <T>(v: T) => {
    active++;
    most = Math.max(most, active);
    await new Promise((r) => setTimeout(r, 2));
    active--;
    return v;
  };
  const inner: I2cBus = {
    sendByte: () => slow(undefined),
    writeByte: () => slow(undefined),
    receiveByte: () => slow(1),
    readByte: () => slow(2),
    i2cWrite: () => slow(undefined),
    i2cRead: () => slow(Uint8Array.of(3)),
    scan: () => slow([]),
    close: async () => {},
  };
  const q = new QueuedI2cBus(inner);
  const results = await Promise.all([
    q.readByte(1, 0),
    q.writeByte(1, 0, 0),
    q.receiveByte(1),
    q.sendByte(1, 0),
    q.readByte(1, 1),
  ]);
  t.same(results, [2, undefined, 1, undefined, 2]);
  t.equal(most, 1, 'never two at once');
  t.equal(q.stats.transactions, 5);
  t.equal(q.stats.wireBits, 2 * WIRE_BITS.readByte + WIRE_BITS.writeByte + WIRE_BITS.receiveByte + WIRE_BITS.sendByte);
  t.equal(q.stats.maxWaiting, 5);
  const failing = new QueuedI2cBus({ ...inner, readByte: async () => Promise.reject(new Error('EREMOTEIO')) });
  await t.rejects(failing.readByte(1, 0));
  t.equal(await failing.receiveByte(1), 1, 'a failure does not block the queue');
  t.equal(failing.stats.failures, 1);
});

t.test('failsafe I2C half: relays off, PWM off, claimed chips untouched, a stuck bus is a failure', async (t) => {
  const { i2c, mcp, pcf, pca } = board();
  mcp.writeByte(0x14, 0x00);
  mcp.writeByte(0x00, 0x00); // every pin an output, low: an active-low board with all relays on
  mcp.writeByte(0x01, 0x00);
  pcf.sendByte(0x00);
  pca.writeByte(0x00, 0x01);
  pca.writeByte(0x06 + 3, 0x08); // channel 1 at 50 %
  const claimedChip = new SimMcp23017(0x27);
  claimedChip.writeByte(0x00, 0x00);
  i2c.attach(0x27, claimedChip);
  i2c.faults.claimed.add(0x27);
  const said: string[] = [];
  const problems: string[] = [];
  const report = { say: (l: string) => said.push(l), problem: (l: string) => problems.push(l) };
  t.equal(await i2cBusOutputsOff(i2c, 'bus t', report), 0, problems.join('; '));
  t.equal(mcp.iodir, 0xffff, 'MCP23017 pins inputs: relays off');
  t.equal(pcf.port, 0xff, 'PCF8574 pins high');
  t.equal(pca.duty(1), 0, 'PCA9685 channel off');
  t.equal(claimedChip.iodir & 1, 0, 'the chip a kernel driver holds is not touched');
  t.match(said.join('\n'), /MCP23017 0x20 on bus t: outputs off/);
  t.match(said.join('\n'), /0x27 is in use by a kernel driver/);

  i2c.faults.stuck = true;
  t.equal(await i2cBusOutputsOff(i2c, 'bus t', { say: () => {}, problem: (l) => problems.push(l) }), 1);
  t.match(problems.join('\n'), /bus t: IO chip probe failed: EIO: bus stuck/);
});

t.test('Linux: an address with a bound kernel driver in sysfs is claimed', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'i2c-sysfs-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, '1-0020'));
  symlinkSync('/', path.join(root, '1-0020', 'driver'));
  mkdirSync(path.join(root, '1-0040')); // a device node without a driver: free
  const claimed = sysfsClaimed(1, root)!;
  t.equal(await claimed(0x20), true);
  t.equal(await claimed(0x40), false);
  t.equal(await claimed(0x21), false);
  const { i2c } = board();
  const found = await probeI2cIo(i2c, { claimed });
  t.match(
    found.find((c) => c.address === 0x20),
    { status: 'claimed', detail: /bound to a kernel driver; not touched/ },
  );
});
