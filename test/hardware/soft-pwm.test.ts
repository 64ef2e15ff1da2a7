// Software PWM on a GPIO line, on a simulated timer that fires late by a random 0-3 ms (as Node
// timers do under load): the average duty is kept by carrying the error into later periods.
import t from 'tap';
import pino from 'pino';
import { SimGpioBackend } from '../../drivers/gpio/sim-backend.js';
import { GpioLines } from '../../src/hardware/gpio-lines.js';
import type { GpioLine } from '../../drivers/gpio/types.js';
import { SoftPwm, type PwmScheduler } from '../../src/hardware/soft-pwm.js';

class JitteryClock implements PwmScheduler {
  t = 0;
  private queue: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;
  private seed = 1;
  constructor(private readonly maxLateMs: number) {}
  now(): number {
    return this.t;
  }
  private random(): number {
    this.seed = (this.seed * 16807) % 2147483647;
    return this.seed / 2147483647;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    // Node timers: at least 1 ms, and late by up to maxLateMs.
    this.queue.push({ at: this.t + Math.max(1, ms) + this.random() * this.maxLateMs, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.queue = this.queue.filter((q) => q.id !== handle);
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.queue.sort((a, b) => a.at - b.at);
      const next = this.queue[0];
      if (!next || next.at > end) break;
      this.queue.shift();
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
  }
}

/** A line that integrates the time it spent high. */
function recordingLine(clock: JitteryClock) {
  let level = false;
  let since = 0;
  let high = 0;
  let edges = 0;
  const line: GpioLine = {
    config: { name: 'x', line: 1, direction: 'out' },
    read: async () => level,
    write: async (v) => {
      if (level) high += clock.now() - since;
      if (v !== level) edges++;
      level = v;
      since = clock.now();
    },
    close: async () => undefined,
  };
  return {
    line,
    highMs: () => high + (level ? clock.now() - since : 0),
    level: () => level,
    edges: () => edges,
  };
}

for (const [hz, duty] of [
  [100, 30],
  [100, 5],
  [80, 72.5],
  [100, 95],
] as const) {
  t.test(`${hz} Hz, ${duty} %: the average duty is kept despite late timers`, async (t) => {
    const clock = new JitteryClock(3);
    const rec = recordingLine(clock);
    const pwm = new SoftPwm(rec.line, (e) => t.fail(String(e)), clock);
    pwm.set(duty, hz);
    clock.advance(10_000);
    const achieved = (100 * rec.highMs()) / 10_000;
    t.ok(Math.abs(achieved - duty) < 1, `achieved ${achieved.toFixed(2)} % over 10 s`);
    if (duty > 20 && duty < 80) t.ok(rec.edges() > hz * 10 * 1.5, `it switches every period (${rec.edges()} edges)`);
    // Pulses shorter than the timer resolution are merged: it switches every few periods.
    else t.ok(rec.edges() > hz * 10 * 0.2, `it switches at least every 10 periods (${rec.edges()} edges)`);
    pwm.set(0, hz);
    const high = rec.highMs();
    clock.advance(1000);
    t.equal(rec.highMs(), high, '0 %: steady low');
    t.equal(pwm.running, false);
  });
}

t.test('100 % is a steady level; a stalled process restarts the schedule instead of bursting', async (t) => {
  const clock = new JitteryClock(0);
  const rec = recordingLine(clock);
  const pwm = new SoftPwm(rec.line, () => undefined, clock);
  pwm.set(100, 100);
  clock.advance(50);
  t.equal(rec.level(), true);
  t.equal(pwm.running, false);
  pwm.set(50, 100);
  clock.advance(1000);
  const before = rec.edges();
  clock.t += 500; // the event loop was blocked for 0.5 s
  clock.advance(100);
  t.ok(rec.edges() - before <= 24, `no burst of catch-up edges (${rec.edges() - before} in 100 ms)`);
});

t.test('a plain write after a software PWM goes out whatever level the PWM was at when last read', async (t) => {
  const backend = new SimGpioBackend();
  const gpio = new GpioLines([{ name: 'heater', line: 17, direction: 'out' }], pino({ level: 'silent' }));
  await gpio.open(backend);
  t.equal(gpio.read('heater'), false, 'read low at open');
  // A soft start begins (its first period starts high) and the actuator is switched off or
  // deleted before the next read: the cached level (low) is not what the line holds.
  gpio.pwm('heater', 50, 100);
  t.equal(backend.physical(17), 1, 'the PWM drives the line high');
  gpio.write('heater', false);
  await gpio.service();
  t.equal(backend.physical(17), 0, 'the heater is off, not left on where the PWM stopped');
  t.equal(gpio.read('heater'), false);
  await gpio.close();
});

t.test('a plain write after a soft start that ended at 100 % (the PWM wrote the line itself) goes out', async (t) => {
  const backend = new SimGpioBackend();
  const gpio = new GpioLines([{ name: 'heater', line: 17, direction: 'out' }], pino({ level: 'silent' }));
  await gpio.open(backend);
  t.equal(gpio.read('heater'), false, 'read low at open');
  // The ramp's last step: 100 % stops the PWM's timer and sets the line high directly.
  gpio.pwm('heater', 50, 100);
  gpio.pwm('heater', 100, 100);
  t.equal(backend.physical(17), 1, 'full on');
  gpio.write('heater', false);
  await gpio.service();
  t.equal(backend.physical(17), 0, 'switched off, not left on because the cached level said low');
  await gpio.close();
});
