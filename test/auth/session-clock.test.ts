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
