// Issue 44 item 7: a session is timed on the monotonic clock of the run that issued it, so a
// wall clock that jumps 3 days forward (NTP on a Pi) does not end it and one set back an hour does
// not stretch it; a session from an earlier run is timed by its wall-clock expiry.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { Auth, COOKIE_NAME } from '../../src/auth/auth.js';
import type { SessionClock } from '../../src/auth/session.js';
import { UsersFile } from '../../src/auth/users.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

class TestClock implements SessionClock {
  mono = 1000;
  offset = Date.UTC(2026, 10, 1);
  constructor(readonly run: string) {}
  wall(): number {
    return this.offset + this.mono;
  }
  now(): number {
    return this.mono;
  }
}

t.test('sessions keep their length when the wall clock jumps', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-session-clock-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await new UsersFile(dataDir).load().add('alice', 'correct horse battery');
  const clock = new TestClock('run-1');
  const open = (c: SessionClock) =>
    Auth.open({ enabled: true, dataDir, log: pino({ level: 'silent' }), validDurationMs: 2 * DAY, sessionClock: c });
  const auth = open(clock);
  t.teardown(() => auth.close());
  const issuedAt = clock.wall();
  const { value } = auth.issue('alice');
  const valid = (a: Auth) => a.grantOf({ cookie: `${COOKIE_NAME}=${value}` }) !== null;
  t.ok(valid(auth), 'valid when issued');

  clock.offset += 3 * DAY; // NTP: three days forward, no time passed
  t.ok(valid(auth), 'the wall clock 3 days forward: still valid (its 2 days have not passed)');
  clock.offset -= 3 * DAY + HOUR; // and an hour behind where it was
  clock.mono += 2 * DAY - HOUR / 2;
  t.ok(valid(auth), 'just under 2 days later: valid');
  clock.mono += HOUR;
  t.notOk(valid(auth), '2 days after it was issued: ended, though the clock was set back an hour');

  // After a restart the issuing run's monotonic clock is gone: the wall-clock expiry holds.
  const later = new TestClock('run-2');
  later.offset = issuedAt + DAY - later.mono;
  const restarted = open(later);
  t.teardown(() => restarted.close());
  t.ok(valid(restarted), 'another run: by its wall-clock expiry (not reached)');
  later.mono += DAY + 1000;
  t.notOk(valid(restarted), 'another run: ended at its wall-clock expiry');
});

t.test('a session from an earlier run is not judged on a clock that was never set (1970)', async (t) => {
  // After a reboot before network time the controller's clock reads 1970: every wall-clock expiry
  // lies ahead of it, so a session cookie that had ended weeks ago (a copied cookie, a former
  // admin's browser) let its holder in again until the clock was set.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-session-unset-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await new UsersFile(dataDir).load().add('alice', 'correct horse battery');
  const open = (c: SessionClock) =>
    Auth.open({ enabled: true, dataDir, log: pino({ level: 'silent' }), validDurationMs: 2 * DAY, sessionClock: c });
  const first = new TestClock('run-1');
  const issuing = open(first);
  t.teardown(() => issuing.close());
  const { value } = issuing.issue('alice');
  const valid = (a: Auth, v = value) => a.grantOf({ cookie: `${COOKIE_NAME}=${v}` }) !== null;

  const unset = new TestClock('run-2');
  unset.offset = Date.UTC(1970, 0, 1, 0, 0, 30) - unset.mono;
  const rebooted = open(unset);
  t.teardown(() => rebooted.close());
  t.notOk(valid(rebooted), 'ended: its expiry cannot be judged on a clock that reads 1970');
  const fresh = rebooted.issue('alice').value;
  t.ok(valid(rebooted, fresh), 'a login on this run works, timed on its monotonic clock');
  unset.mono += 2 * DAY + 1000;
  t.notOk(valid(rebooted, fresh), 'and ends after its 2 days');

  // The clock set (network time): a session of an earlier run is judged by its expiry again.
  const set = new TestClock('run-3');
  const later = open(set);
  t.teardown(() => later.close());
  t.ok(valid(later), 'on a set clock, by its wall-clock expiry (not reached)');
});
