// tags: slow (the built service under a notify socket and its watchdog)
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, journaldLine } from '../../src/log.js';
import { NotifyHarness } from '../deploy/notify-harness.js';
import { startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

t.test('the built CLI reports READY=1 once listening and pings the watchdog from the loop', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-notify-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const harness = await NotifyHarness.start(path.join(dir, 'notify.sock'), t);
  t.teardown(() => harness.stop());
  const cli = await startCli(
    ['--data-dir', path.join(dir, 'data'), '--mqtt-port', '0'],
    {
      NOTIFY_SOCKET: harness.address,
      WATCHDOG_USEC: '1000000',
    },
    t,
  );
  t.teardown(() => cli.child.kill('SIGKILL'));
  const deadline = Date.now() + limit(10_000);
  const seen = (text: string) => harness.messages.some((m) => m.message.split('\n').includes(text));
  while (
    Date.now() < deadline &&
    !(seen('READY=1') && harness.messages.filter((m) => m.message.includes('WATCHDOG=1')).length >= 2)
  ) {
    await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(seen('READY=1'), 'READY=1 arrived');
  t.ok(harness.messages.filter((m) => m.message.includes('WATCHDOG=1')).length >= 2, 'watchdog pings keep arriving');
  const ready = await fetch(`${cli.base}/edge-one/system/ping`);
  t.equal(ready.status, 200, 'the API answers once READY was sent');
  cli.child.kill('SIGTERM');
  t.equal(await cli.exited, 0, 'SIGTERM exits 0');
  t.ok(seen('STOPPING=1'), 'STOPPING=1 on shutdown');
});

t.test('under journald, log lines carry the syslog priority and no duplicate timestamp', async (t) => {
  const lines: string[] = [];
  const log = createLogger('debug', { JOURNAL_STREAM: '8:1234' }, { write: (s: string) => lines.push(s) });
  log.error('disk full');
  log.warn('sensor slow');
  log.info('started');
  log.debug('detail');
  t.same(
    lines.map((l) => l.slice(0, 3)),
    ['<3>', '<4>', '<6>', '<7>'],
  );
  for (const l of lines) t.notMatch(l, /"time"/, 'no timestamp: journald adds its own');
  t.match(JSON.parse(lines[0]!.slice(3)), { msg: 'disk full', level: 50 });
  t.equal(journaldLine('{"level":60,"msg":"x"}').slice(0, 3), '<2>');
  const plain: string[] = [];
  createLogger('info', {}, { write: (s: string) => plain.push(s) }).info('hello');
  t.match(plain[0], /"time":\d+/, 'outside systemd, lines keep their timestamp');
});
