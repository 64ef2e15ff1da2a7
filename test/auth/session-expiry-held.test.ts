// A connection let in by a session (an event stream, a websocket, an MQTT connection over
// /eventbus) ends when the session does: at its expiry too, not only at a logout or a password
// change. Before, a dashboard tab left open kept its stream, and an admin's websocket its write
// access, for as long as it stayed connected after the session had run out.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import t from 'tap';
import { Auth, COOKIE_NAME, USERS_WATCH_MS } from '../../src/auth/auth.js';
import type { SessionClock } from '../../src/auth/session.js';
import { UsersFile } from '../../src/auth/users.js';
import { limit } from '../helpers/limits.js';

const HOUR = 3_600_000;

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

/** A connection as holdWhileOpen sees it. */
class Conn extends EventEmitter {
  destroyed = false;
  closed = false;
}

async function until(what: string, cond: () => boolean): Promise<void> {
  const end = Date.now() + limit(10 * USERS_WATCH_MS);
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

t.test('a connection held on a session is closed when the session expires', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-session-held-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const users = new UsersFile(dataDir).load();
  await users.add('alice', 'correct horse battery');
  const token = users.createToken('alice');
  const clock = new TestClock('run-1');
  const auth = Auth.open({
    enabled: true,
    dataDir,
    log: pino({ level: 'silent' }),
    validDurationMs: 2 * HOUR,
    sessionClock: clock,
  });
  t.teardown(() => auth.close());

  const hold = (headers: Record<string, string>) => {
    const grant = auth.grantOf(headers);
    t.ok(grant, 'let in');
    const conn = new Conn();
    auth.holdWhileOpen(grant!, conn, () => {
      conn.closed = true;
      conn.emit('close');
    });
    return conn;
  };
  const { value } = auth.issue('alice');
  const stream = hold({ cookie: `${COOKIE_NAME}=${value}` });
  const script = hold({ authorization: `Bearer ${token}` });
  t.equal(auth.status().connections, 2);

  clock.mono += HOUR;
  // Not closed before its session ends (the request below checks the held connections).
  const other = hold({ cookie: `${COOKIE_NAME}=${auth.issue('alice').value}` });
  t.notOk(stream.closed, 'an hour in: still open');

  clock.mono += HOUR + 1;
  await until('the expired session’s connection to close', () => stream.closed);
  t.notOk(script.closed, 'a token has no expiry: its connection stays');
  t.notOk(other.closed, 'a later session has not run out');
  t.equal(auth.status().connections, 2);
  t.equal(auth.grantOf({ cookie: `${COOKIE_NAME}=${value}` }), null, 'the session lets nothing in either');
});
