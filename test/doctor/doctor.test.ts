// `edgeblocks doctor`, the built CLI, on a Pi laid out as its kernel does (test/helpers/pi-models.ts)
// with the emulated buses of --hardware sim, and the faults a brewer meets injected: a missing
// overlay, a device the service user may not open, a flaky bus with CRC errors, a sensor stuck
// at 85 degC. The advice it prints must be docs/troubleshooting.md's own words.
// tags: slow (the built CLI on laid-out Pi trees)
import t from 'tap';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { all, doctor, sectionNamed, setUp, type Section } from '../helpers/doctor.js';
import { ADVICE, markdownBlocks, plain } from '../../src/doctor/advice.js';

const FAULTY = {
  ds2482: [
    {
      address: 24,
      variant: 'ds2482-100',
      channels: [
        [
          { name: 'beer', type: 'DS18B20', temperature: 19.5 },
          { name: 'stuck', type: 'DS18B20', address: '28-00000000085a', faults: { stuckAt85: true } },
          { name: 'flaky', type: 'DS18B20', address: '28-0000000000f1', temperature: 21, faults: { crcEvery: 2 } },
        ],
      ],
    },
  ],
  gpio: [{ name: 'heater', line: 17, direction: 'out', drives: 'heater' }],
};

t.test('faults injected: missing overlay, permission denied, a flaky bus, a sensor stuck at 85 degC', async (t) => {
  const s = setUp(t, 'pi4', FAULTY, { bootConfig: '[all]\ndtparam=i2c_arm=on\n', w1Masters: 0 });
  chmodSync(join(s.roots.dev, 'i2c-1'), 0o600); // root only: the service user may not open it
  const res = doctor([...s.args, '--reads', '4', '--json']);
  t.equal(res.code, 1, `exit 1: something needs doing\n${res.stderr}`);
  const report = JSON.parse(res.stdout) as { sections: Section[]; problems: number };
  const sections = report.sections;

  const system = sectionNamed(sections, /^System$/);
  t.match(Object.fromEntries(system.facts), { model: 'Raspberry Pi 4 Model B Rev 1.5' });

  const interfaces = sectionNamed(sections, /^Interfaces$/);
  const overlay = interfaces.findings.find((f) => /dtoverlay=w1-gpio\) is not enabled/.test(f.text));
  t.ok(overlay, 'the missing 1-Wire overlay is a finding');
  t.equal(overlay?.verdict, 'warn');
  t.match(overlay?.advice, /run `sudo scripts\/install-pi\.sh --enable-interfaces`, then reboot/);
  const denied = interfaces.findings.find((f) => /permission denied/.test(f.text));
  t.equal(denied?.verdict, 'fail', 'the device the service user cannot open is a failure');
  t.match(denied?.text, /cannot read and write .*\/dev\/i2c-1 \(600 root:i2c\)/);
  t.notMatch(denied?.text, /gpiochip0/, 'the nodes it can open are not listed');
  t.match(Object.fromEntries(interfaces.facts)['GPIO chip'], /"pinctrl-bcm2711", base 512.*GPIO17 is sysfs 529/);

  const flaky = sectionNamed(sections, /28-0000000000f1/);
  const crc = flaky.findings.find((f) => /failed their CRC/.test(f.text));
  t.ok(crc, 'the flaky sensor has a CRC finding');
  t.match(crc?.text, /^2 of 4 reads failed their CRC \(50 %\)/, 'every 2nd frame garbled: half the reads');
  t.equal(crc?.verdict, 'fail');
  t.match(Object.fromEntries(flaky.facts).values, /21\.00 degC \.\. 21\.00 degC/, 'the good reads are the right value');

  const stuck = sectionNamed(sections, /28-00000000085a/);
  t.match(stuck.findings, [{ verdict: 'fail', text: /stuck at 85 degC: all 4 reads are the power-on value/ }]);
  t.match(Object.fromEntries(stuck.facts).conversion, /^\d+\.\.\d+ ms a read$/);

  const beer = sectionNamed(sections, /DS18B20 28-/);
  t.ok(beer, 'sensors have sections');
  const good = all(sections).filter((x) =>
    x.findings.some((f) => f.verdict === 'ok' && /good reads, 19\.50 degC/.test(f.text)),
  );
  t.equal(good.length, 1, 'the healthy sensor reads its 19.5 degC four times');

  // Each piece of advice is docs/troubleshooting.md's own words, not a second copy.
  const docs = markdownBlocks(readFileSync(join(ROOT, 'docs/troubleshooting.md'), 'utf8')).map(plain);
  for (const f of all(sections).flatMap((x) => x.findings))
    if (f.advice && f.see?.startsWith('docs/troubleshooting.md'))
      t.ok(docs.includes(f.advice), `advice for "${f.text.slice(0, 50)}" is a paragraph of the docs`);
  t.equal(
    report.problems,
    all(sections)
      .flatMap((x) => x.findings)
      .filter((f) => /warn|fail/.test(f.verdict)).length,
  );
});

const HEALTHY = {
  ds2482: [{ address: 24, variant: 'ds2482-100', channels: [[{ name: 'beer', type: 'DS18B20', temperature: 19.5 }]] }],
  w1: [[{ name: 'fridge', type: 'DS18B20', temperature: 4 }]],
  i2cSensors: [{ name: 'room', type: 'SHT3X', address: '0x44', temperature: 22.5, humidity: 40 }],
  gpio: [
    { name: 'heater', line: 17, direction: 'out', drives: 'heater' },
    { name: 'cooler', line: 27, direction: 'out', activeLow: true, drives: 'cooler' },
  ],
};

t.test('a healthy Pi 5: nothing needs doing, exit 0, a report to read', async (t) => {
  const s = setUp(t, 'pi5', HEALTHY);
  const res = doctor([...s.args, '--reads', '2']);
  t.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
  t.match(res.stdout, /^edgeblocks doctor \d+\.\d+\.\d+/);
  t.match(res.stdout, /model +Raspberry Pi 5 Model B Rev 1\.0/);
  t.match(res.stdout, /GPIO chip +gpiochip571 "pinctrl-rp1", base 571/);
  t.match(res.stdout, /i2c-1 \(header\), i2c-13 \(HDMI, not probed\), i2c-14 \(HDMI, not probed\)/);
  t.match(res.stdout, /heater +GPIO17, active high, safe state off/);
  t.match(res.stdout, /cooler +GPIO27, active low, safe state off/);
  t.match(
    res.stdout,
    /I2C bus emulated\n +sensors +0x44 SHT3X\n +SHT3X 0x44\n +reads +2: 2 good\n +values +22\.50 \.\. 22\.50 degC/,
  );
  t.match(res.stdout, /Nothing needs doing\.\n$/);
  t.notMatch(res.stdout, /WARN|FAIL/);
});

t.test('the 1-Wire overlay with its pull-up variant (w1-gpio-pullup) is the overlay, not a missing one', async (t) => {
  const s = setUp(t, 'pi5', HEALTHY, {
    bootConfig: '[all]\ndtparam=i2c_arm=on\ndtoverlay=w1-gpio-pullup,gpiopin=22\n',
  });
  const res = doctor([...s.args, '--reads', '2']);
  t.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
  t.match(res.stdout, /1-Wire +dtoverlay=w1-gpio-pullup \(data on GPIO22\); kernel masters: w1_bus_master1/);
  t.notMatch(res.stdout, /is not enabled/);
});

t.test('--toggle: asks first; with --yes switches for the time given and back, read back each time', async (t) => {
  const s = setUp(t, 'pi4', HEALTHY);
  const unasked = doctor([...s.args, '--reads', '1', '--toggle', 'heater', '--json']);
  const outputs = sectionNamed((JSON.parse(unasked.stdout) as { sections: Section[] }).sections, /^Outputs$/);
  t.match(outputs.findings, [
    {},
    { verdict: 'info', text: /heater was not switched: no terminal to confirm on \(add --yes/ },
  ]);

  const started = performance.now();
  const toggled = doctor([...s.args, '--reads', '1', '--toggle', 'cooler', '--toggle-seconds', '1', '--yes', '--json']);
  t.ok(performance.now() - started >= 1000, 'it stayed switched for the second asked');
  const after = sectionNamed((JSON.parse(toggled.stdout) as { sections: Section[] }).sections, /^Outputs$/);
  t.match(after.findings, [
    {},
    { verdict: 'ok', text: 'cooler: off -> on for 1 s (read back on) -> off (read back off)' },
  ]);

  const unknown = doctor([...s.args, '--toggle', 'pump', '--yes']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /--toggle pump: no GPIO output of that name \(outputs: heater, cooler\)/);
  const bad = doctor([...s.args, '--reads', '0']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--reads: must be a whole number 1\.\.50/);
  const typo = doctor([...s.args, '--jsn']);
  t.equal(typo.code, 2);
  t.match(typo.stderr, /--jsn: unknown option; did you mean "--json"\?/);
});

t.test('with the service running: its lock is respected, its view is shown, no bus is touched', async (t) => {
  const s = setUp(t, 'pi4', HEALTHY);
  const service = await startCli(
    ['--hardware', 'sim', '--sim-config', s.simConfig, '--data-dir', s.data, '--mqtt-port', '0', '--host', '127.0.0.1'],
    {},
    t,
  );
  t.teardown(() => void service.child.kill('SIGKILL'));
  const res = doctor([...s.args, '--port', String(service.port), '--json']);
  t.equal(res.code, 0, res.stderr);
  const sections = (JSON.parse(res.stdout) as { sections: Section[] }).sections;
  t.notOk(
    all(sections).some((x) => x.title === 'Buses'),
    'no bus test while the service has the buses',
  );
  const view = sectionNamed(sections, /^Service$/);
  t.match(view.findings[0], {
    verdict: 'info',
    text: /the service is running \(pid \d+\) and has the buses and outputs/,
  });
  t.match(Object.fromEntries(view.facts).api, new RegExp(`127\\.0\\.0\\.1:${service.port}/edge-one/system/status`));
  t.ok(
    view.parts?.some((p) => /as the service sees it/.test(p.title)),
    'the service reports its buses',
  );

  const toggle = doctor([...s.args, '--port', String(service.port), '--toggle', 'heater', '--yes']);
  t.equal(toggle.code, 2);
  t.match(toggle.stderr, /--toggle heater: the service is running \(pid \d+\) and drives the outputs; stop it first/);

  // What the service itself finds wrong (its active alerts) is a problem of the report: with
  // control disabled the doctor said "Nothing needs doing" and exited 0.
  const api = `${service.base}/edge-one`;
  const disabled = await fetch(`${api}/settings/enabled`, {
    method: 'PUT',
    body: JSON.stringify({ enabled: false }),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(disabled.status, 200, 'control disabled');
  const deadline = performance.now() + limit(10_000);
  while (((await (await fetch(`${api}/system/status`)).json()) as { alerts: { active: number } }).alerts.active !== 1) {
    if (performance.now() > deadline) throw new Error('timed out waiting for the control-disabled alert');
    await new Promise((r) => setTimeout(r, 50));
  }
  const alerted = doctor([...s.args, '--port', String(service.port), '--json']);
  t.equal(alerted.code, 1, `exit 1 while the service has an active alert\n${alerted.stderr}`);
  t.match(sectionNamed((JSON.parse(alerted.stdout) as { sections: Section[] }).sections, /^Service$/).findings, [
    {},
    {
      verdict: 'warn',
      text: /^active alert since \S+: Control disabled: Control is disabled: every output is in its safe state$/,
    },
  ]);
});

t.test('every piece of advice the doctor can give is found in docs/troubleshooting.md', async (t) => {
  const docs = markdownBlocks(readFileSync(join(ROOT, 'docs/troubleshooting.md'), 'utf8')).map(plain);
  for (const [key, { phrase }] of Object.entries(ADVICE))
    t.equal(docs.filter((b) => b.includes(plain(phrase))).length, 1, `${key}: one paragraph holds "${phrase}"`);
});
