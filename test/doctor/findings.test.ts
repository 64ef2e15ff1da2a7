// The rest of what `edgeblocks doctor` must catch, each on the emulated hardware: a sensor powered
// from the data line (through a DS2482, where the doctor asks the chip, and through the kernel's
// w1 tree, where it reads ext_power), a data line held low (an all-zero scratchpad, whose CRC
// passes), and the system's clock and SD card: no network time, an RTC, and what the history
// files written over two days say about the card's wear.
import t from 'tap';
import { closeSync, mkdirSync, openSync, readFileSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { all, doctor, sectionNamed, setUp, type Finding, type Section } from '../helpers/doctor.js';
import { movedClock } from '../helpers/faketime.js';
import { smallDisk } from '../helpers/small-disk.js';
import { markdownBlocks, plain } from '../../src/doctor/advice.js';

const docs = markdownBlocks(readFileSync(join(ROOT, 'docs/troubleshooting.md'), 'utf8')).map(plain);
const quotesDocs = (f: Finding | undefined) => f?.advice !== undefined && docs.includes(f.advice);

function report(stdout: string): Section[] {
  return (JSON.parse(stdout) as { sections: Section[] }).sections;
}

t.test('parasite power and a data line held low, through a DS2482 and through the kernel w1 tree', async (t) => {
  const s = setUp(t, 'pi3', {
    ds2482: [
      {
        address: 24,
        variant: 'ds2482-100',
        channels: [
          [
            { name: 'parasitic', type: 'DS18B20', address: '28-0000000002a1', temperature: 18, power: 'parasite' },
            { name: 'low', type: 'DS18B20', address: '28-0000000000d1', faults: { dataLow: true } },
          ],
        ],
      },
    ],
    w1: [[{ name: 'kernel', type: 'DS18B20', address: '28-0000000002a2', temperature: 17.5, power: 'parasite' }]],
  });
  const res = doctor([...s.args, '--reads', '2', '--json']);
  t.equal(res.code, 1, res.stderr);
  const sections = report(res.stdout);

  for (const [address, celsius] of [
    ['28-0000000002a1', '18.00'],
    ['28-0000000002a2', '17.50'],
  ] as const) {
    const sensor = sectionNamed(sections, new RegExp(address));
    const facts = Object.fromEntries(sensor.facts);
    t.equal(facts.power, 'parasite (VDD to GND)', `${address}: its power`);
    t.match(facts.values, `${celsius} degC .. ${celsius} degC`, `${address}: reads its temperature`);
    const warning = sensor.findings.find((f) => f.text === 'parasite powered');
    t.equal(warning?.verdict, 'warn', `${address}: parasite power is a warning`);
    t.ok(quotesDocs(warning), `${address}: with the troubleshooting page's paragraph`);
    t.match(warning?.advice, /Parasite power\./);
  }

  const low = sectionNamed(sections, /28-0000000000d1/);
  t.match(Object.fromEntries(low.facts).reads, /^2: 0 good, 0 CRC errors \(0 %\), 0 at 85 degC, 2 all-zero/);
  const zero = low.findings.find((f) => /all-zero/.test(f.text));
  t.equal(zero?.verdict, 'fail');
  t.equal(zero?.text, '2 all-zero scratchpad(s): the data line is held low');
  t.ok(quotesDocs(zero), 'with the troubleshooting page paragraph');
  t.notOk(
    all(sections).some((x) => x.findings.some((f) => f.verdict === 'ok' && /0\.00 degC/.test(f.text))),
    'an all-zero scratchpad is never taken for 0 degC',
  );
});

t.test('the system: no network time, an RTC, and the SD card wear from two days of history files', async (t) => {
  const s = setUp(
    t,
    'zero2w',
    { w1: [[{ name: 'beer', type: 'DS18B20', temperature: 20 }]] },
    { synced: false, rtc: 'rtc-ds1307' },
  );
  // 24 MB of history (sparse files: their size is what counts), the doctor's clock two days on.
  const history = join(s.data, 'history');
  mkdirSync(history);
  for (const [name, mb] of [
    ['fields.jsonl', 4],
    ['raw-1.chunk', 20],
  ] as const) {
    const fd = openSync(join(history, name), 'w');
    writeSync(fd, 'x', mb * 1024 * 1024 - 1);
    closeSync(fd);
  }
  const clock = movedClock(s.dir);
  clock.move('+2d');
  const res = doctor([...s.args, '--reads', '1', '--json'], clock.env);
  t.equal(res.code, 1, `the clock needs doing: exit 1\n${res.stderr}`);
  const system = sectionNamed(report(res.stdout), /^System$/);
  const facts = Object.fromEntries(system.facts);
  t.equal(facts.model, 'Raspberry Pi Zero 2 W Rev 1.0');
  t.equal(facts.clock, 'no network time (no /run/systemd/timesync/synchronized); RTC rtc-ds1307');
  const clockFinding = system.findings.find((f) => /not synchronised/.test(f.text));
  t.equal(clockFinding?.verdict, 'warn');
  t.ok(quotesDocs(clockFinding), 'with the troubleshooting page paragraph on a clock behind');

  const wear =
    /^history writes ([\d.]+) MB a day \(24\.0 MB in history\/ over ([\d.]+) days\); a (\d+) GB card of 3000 erase cycles lasts (\d+|over 1000) years of that$/.exec(
      facts['sd card wear'] ?? '',
    );
  t.ok(wear, `the wear line: ${facts['sd card wear']}`);
  const [, perDay, days, gb] = wear ?? [];
  t.ok(Math.abs(Number(days) - 2) <= 0.1, `about two days old (${days})`);
  t.ok(Math.abs(Number(perDay) - 12) <= 0.7, `24 MB over two days is about 12 MB a day (${perDay})`);
  const st = statfsSync(s.data);
  t.equal(Number(gb), Math.round((st.blocks * st.bsize) / 1024 ** 3), 'the card is the data dir filesystem');
  t.notOk(
    system.findings.some((f) => /SD card wears out/.test(f.text)),
    '12 MB a day is no worry on a card that size',
  );

  const synced = setUp(t, 'zero2w', { w1: [[{ name: 'beer', type: 'DS18B20', temperature: 20 }]] });
  const fine = doctor([...synced.args, '--reads', '1', '--json']);
  t.equal(fine.code, 0, fine.stderr);
  const sys = sectionNamed(report(fine.stdout), /^System$/);
  t.equal(
    Object.fromEntries(sys.facts).clock,
    'systemd-timesyncd: synchronised; no RTC (the time is lost at power-off)',
  );
  t.equal(Object.fromEntries(sys.facts)['sd card wear'], 'no history written yet');
  t.same(sys.findings, [], 'nothing to say about a synchronised clock');
});

t.test('history that would wear the card out within five years is a warning', async (t) => {
  // A 2 MiB card: 24 MB over two days is some six thousand card-fulls a year.
  const card = smallDisk('doctor-card-');
  t.teardown(() => card.unmount());
  const s = setUp(t, 'pi4', { w1: [[{ name: 'beer', type: 'DS18B20', temperature: 20 }]] });
  mkdirSync(join(card.mountPoint, 'history'));
  const fd = openSync(join(card.mountPoint, 'history/raw-1.chunk'), 'w');
  writeSync(fd, 'x', 24 * 1024 * 1024 - 1);
  closeSync(fd);
  const clock = movedClock(s.dir);
  clock.move('+2d');
  const args = s.args.map((a) => (a === s.data ? card.mountPoint : a));
  const res = doctor([...args, '--reads', '1', '--json'], clock.env);
  t.equal(res.code, 1, res.stderr);
  const system = sectionNamed(report(res.stdout), /^System$/);
  t.match(Object.fromEntries(system.facts)['sd card wear'], /^history writes 12\.\d MB a day .*; a 2 MB card/);
  const wear = system.findings.find((f) => /SD card wears out/.test(f.text));
  t.equal(wear?.verdict, 'warn');
  t.match(wear?.text, /^at this rate the SD card wears out in about 1\.[34] years$/);
  t.equal(wear?.see, 'docs/history.md#the-embedded-store-and-the-sd-card');
});
