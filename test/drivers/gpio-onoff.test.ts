import t from 'tap';
import { rmSync } from 'node:fs';
import { loadOnoff, OnoffGpioBackend, type OnoffModule } from '../../drivers/gpio/onoff-backend.js';
import { makeGpioRoot, PI4_CHIPS } from './gpio-fixtures.js';

interface Made {
  number: number;
  direction: string;
  options: unknown;
  level: number;
  unexported: boolean;
}

function fakeOnoff(fail?: NodeJS.ErrnoException): { made: Made[]; module: OnoffModule } {
  const made: Made[] = [];
  class Gpio {
    private readonly rec: Made;
    constructor(number: number, direction: string, _edge?: string, options?: unknown) {
      if (fail) throw fail;
      this.rec = { number, direction, options, level: direction === 'high' ? 1 : 0, unexported: false };
      made.push(this.rec);
    }
    async read(): Promise<number> {
      return this.rec.level;
    }
    async write(value: number): Promise<void> {
      this.rec.level = value;
    }
    unexport(): void {
      this.rec.unexported = true;
    }
  }
  return { made, module: { Gpio } };
}

t.test('line offsets are added to the chip base; activeLow handled in software', async (t) => {
  const root = makeGpioRoot(PI4_CHIPS);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const fake = fakeOnoff();
  const gpio = await OnoffGpioBackend.create({
    root,
    load: async () => ({ default: fake.module }),
    unexportOnClose: true,
  });
  const heater = await gpio.open({ name: 'heater', line: 17, direction: 'out', activeLow: true });
  const sensor = await gpio.open({ name: 'float', line: 4, direction: 'in' });
  t.same(
    fake.made.map((m) => [m.number, m.direction]),
    [
      [529, 'high'],
      [516, 'in'],
    ],
  );
  t.match(fake.made[0]!.options, { activeLow: false });
  t.equal(await heater.read(), false);
  await heater.write(true);
  t.equal(fake.made[0]!.level, 0, 'active = physical low');
  t.equal(await heater.read(), true);
  t.equal(await sensor.read(), false);
  await gpio.close();
  t.ok(fake.made.every((m) => m.unexported));
});

t.test('a missing native module gives a clear error', async (t) => {
  await t.rejects(
    loadOnoff(async () => {
      throw new Error("Cannot find module 'epoll'\nRequire stack: ...");
    }),
    /optional dependency "onoff" could not be loaded \(Cannot find module 'epoll'\); on the Pi run "npm ci"/,
  );
  await t.rejects(
    loadOnoff(async () => ({})),
    /does not export a Gpio class/,
  );
});

t.test('export failures name the line, the sysfs number and the base', async (t) => {
  const root = makeGpioRoot(PI4_CHIPS);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const err: NodeJS.ErrnoException = Object.assign(new Error('EINVAL: invalid argument, write'), { code: 'EINVAL' });
  const gpio = await OnoffGpioBackend.create({ root, load: async () => fakeOnoff(err).module });
  await t.rejects(
    gpio.open({ name: 'heater', line: 17, direction: 'out' }),
    /GPIO "heater" \(line 17, sysfs 529\): EINVAL.*gpiochip512 base 512 \+ line 17/,
  );
});

t.test('the real onoff package loads here (its native part is built)', async (t) => {
  const onoff = await loadOnoff();
  t.type(onoff.Gpio, 'function');
});
