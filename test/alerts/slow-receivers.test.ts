// A receiver that stalls mid-answer holds one send for the channel's time limit (sendTimeoutMs),
// never longer: an SMTP server that keeps the connection busy with a reply it never finishes
// ("250-" continuation lines, each within the socket's idle timeout) fails the send at the
// limit, its connection is closed, and the outbox goes on delivering to the other channels. A
// heartbeat receiver that never answers has one call waiting at a time, not one per beat.
// tags: slow (rule timings on the real clock)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { email } from '../../src/alerts/channels/email.js';
import { heartbeat, type Heartbeat } from '../../src/alerts/channels/heartbeat.js';
import { testMessage } from '../../src/alerts/messages.js';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';
import { HttpReceiver, until } from './receivers.js';

const SEND_TIMEOUT_MS = 1000;

/** An SMTP server that takes the whole message, then answers it with "250-" lines for ever. */
async function stallingSmtp(): Promise<{
  port: number;
  open: () => number;
  sessions: () => number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let sessions = 0;
  const server: Server = createServer((socket) => {
    sessions++;
    sockets.add(socket);
    let trickle: NodeJS.Timeout | undefined;
    socket.on('close', () => {
      sockets.delete(socket);
      clearInterval(trickle);
    });
    socket.on('error', () => undefined);
    socket.write('220 stalling ESMTP\r\n');
    let inData = false;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (let at = buffered.indexOf('\r\n'); at >= 0; at = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 2);
        if (inData) {
          if (line !== '.') continue;
          inData = false;
          // The reply to the message: continuation lines, well within the idle timeout, never a last line.
          trickle = setInterval(() => socket.write('250-still thinking\r\n'), SEND_TIMEOUT_MS / 5);
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 stalling\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    open: () => sockets.size,
    sessions: () => sessions,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const mailTo = (port: number) => ({
  host: '127.0.0.1',
  port,
  secure: false,
  requireTls: false,
  rejectUnauthorized: true,
  from: 'brewery@example.com',
  to: 'me@example.com',
});

t.test(
  'an SMTP server that never finishes its reply fails the send at the time limit and is disconnected',
  async (t) => {
    const smtp = await stallingSmtp();
    t.teardown(smtp.close);
    const channel = email.create(mailTo(smtp.port), {
      timeoutMs: SEND_TIMEOUT_MS,
      controlRuns: () => true,
      log: pino({ level: 'silent' }),
    });
    t.teardown(() => channel.close?.());
    const never = Symbol('still sending');
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      channel.send!(testMessage('edge-one', Date.now())).then(
        (answer) => ({ answer }),
        (e: Error) => ({ error: e.message }),
      ),
      new Promise<typeof never>((resolve) => (timer = setTimeout(() => resolve(never), limit(10 * SEND_TIMEOUT_MS)))),
    ]);
    clearTimeout(timer);
    t.not(outcome, never, `the send settled within ${10 * SEND_TIMEOUT_MS} ms`);
    t.match(outcome, { error: new RegExp(`${SEND_TIMEOUT_MS} ms`) }, 'it failed, naming the time limit');
    await until('the stalled connection closed', limit(5000), () => smtp.open() === 0);
    t.pass('the connection to the stalling server is closed');
  },
);

t.test('a stalling email receiver does not hold up the webhook', async (t) => {
  const smtp = await stallingSmtp();
  t.teardown(smtp.close);
  const http = new HttpReceiver();
  await http.start();
  t.teardown(() => http.stop());
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alert-slow-'));
  const config = path.join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      alerts: {
        checkIntervalMs: 100,
        retryBaseMs: 200,
        retryMaxMs: 1000,
        sendTimeoutMs: SEND_TIMEOUT_MS,
        email: mailTo(smtp.port),
        webhook: { url: http.url('/hook') },
        rules: { resolveAfter: 0.5 },
      },
    }),
  );
  const rt = await startApp({ config, hardware: 'sim' }, { dataDir: path.join(dir, 'data') });
  t.teardown(async () => {
    await rt.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const enable = async (enabled: boolean) => {
    const res = await fetch(`${rt.base}/settings/enabled`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled }),
    });
    t.equal(res.status, 200, `control ${enabled ? 'enabled' : 'disabled'}`);
  };
  const hook = (event: string) => http.json('/hook').find((m) => m.key === 'control-disabled' && m.event === event);

  await enable(false);
  await until('the fired alert at the webhook', limit(5000), () => hook('fired'));
  await until('the email receiver stalling on it', limit(5000), () => smtp.sessions() >= 1);
  await enable(true);
  await until('the resolve at the webhook', limit(10 * SEND_TIMEOUT_MS), () => hook('resolved'));
  t.pass('the webhook got the resolve while the email receiver stalled');
  const alerts = (await (await fetch(`${rt.base}/alerts`)).json()) as { history: any[] };
  t.ok(
    alerts.history.some((h) => h.event === 'failed' && h.channel === 'email' && /1000 ms/.test(h.error ?? '')),
    'the email attempt is recorded as failed at the time limit',
  );
});

t.test('a heartbeat receiver that never answers has one call at a time, not one per beat', async (t) => {
  const open = new Set<Socket>();
  let peak = 0;
  const hung: Server = createServer((socket) => {
    open.add(socket);
    peak = Math.max(peak, open.size);
    socket.on('error', () => undefined);
    socket.on('close', () => open.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    for (const s of open) s.destroy();
    await new Promise<void>((resolve) => hung.close(() => resolve()));
  });
  const { port } = hung.address() as AddressInfo;
  // A call may take 5 s; a beat comes every second.
  const beat = heartbeat.create(
    { url: `http://127.0.0.1:${port}/ping`, intervalSeconds: 1 },
    { timeoutMs: 5000, controlRuns: () => true, log: pino({ level: 'silent' }) },
  ) as Heartbeat;
  beat.start();
  t.teardown(() => beat.close());
  await new Promise((r) => setTimeout(r, 3500));
  t.equal(peak, 1, 'one connection at a time to the receiver');
  t.ok(beat.counts.busy >= 2, `the beats while the call waits are skipped and counted (${beat.counts.busy})`);
  t.equal(beat.counts.failed, 0, 'none failed yet (the one call is within its limit)');
});
