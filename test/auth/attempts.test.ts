// The login limiter's own bounds: the table of addresses has a limit (the oldest is forgotten,
// counted in the status, logged once a minute), and refusals are logged once a minute per address
// with the count since the previous line.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { LOGIN_LIMIT, LoginAttempts, MAX_ADDRESSES } from '../../src/auth/attempts.js';

function capture() {
  const lines: Array<Record<string, any>> = [];
  const sink = new Writable({
    write: (c, _e, cb) => (
      lines.push(
        ...c
          .toString()
          .trim()
          .split('\n')
          .map((l: string) => JSON.parse(l)),
      ),
      cb()
    ),
  });
  return { log: pino({ level: 'info' }, sink), lines };
}
const wrong = async () => null;

t.test('more addresses than the table holds: the oldest are forgotten, counted and logged once', async (t) => {
  const { log, lines } = capture();
  let now = 1_000_000;
  const attempts = new LoginAttempts(log, () => now);
  await Promise.all(
    Array.from({ length: MAX_ADDRESSES + 5 }, (_, i) =>
      attempts.attempt(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 'mqtt', wrong),
    ),
  );
  t.same(attempts.status(), {
    addresses: MAX_ADDRESSES,
    limit: MAX_ADDRESSES,
    refused: MAX_ADDRESSES + 5,
    forgotten: 5,
  });
  await new Promise((r) => setImmediate(r));
  t.equal(
    lines.filter((l) => /forgot the oldest/.test(l.msg)).length,
    1,
    'one line for the table, not one per address',
  );
  now += 2 * LOGIN_LIMIT.windowMs;
  attempts.prune();
  t.equal(attempts.status().addresses, 0, 'addresses whose window is over are forgotten');
});

t.test('refusals from one address: a line at the first, then at most one a minute with the count', async (t) => {
  const { log, lines } = capture();
  let now = 5_000_000;
  const attempts = new LoginAttempts(log, () => now);
  const results = await Promise.all(
    Array.from({ length: 15 }, () => attempts.attempt('::ffff:192.0.2.7', 'http', wrong)),
  );
  t.equal(results.filter((r) => !r.ok && r.limited).length, 15 - LOGIN_LIMIT.max, 'past the limit: limited');
  now += 61_000;
  const ok = await attempts.attempt('192.0.2.7', 'mqtt', async () => 'alice');
  t.same(ok, { ok: true, value: 'alice' }, 'a new window; the IPv4-mapped form is the same address');
  await attempts.attempt('192.0.2.7', 'mqtt', wrong);
  await new Promise((r) => setImmediate(r));
  const mine = lines.filter((l) => l.address === '192.0.2.7');
  t.same(
    mine.map((l) => [l.refused, l.limited, l.via]),
    [
      [1, 1, 'http'], // the over-limit ones are refused first: they wait for no password check
      [15, 4, 'http, mqtt'],
    ],
    'the first refusal, then the 14 after it and the one a minute later, in one line',
  );
});
