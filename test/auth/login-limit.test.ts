// One login limit per address for REST logins and the embedded broker's CONNECTs: password
// guessing over MQTT is limited like /auth/login (failures share one budget), refused CONNECTs are
// answered after the same constant delay, and the log gets one line per address a minute.
import mqtt from 'mqtt';
import t from 'tap';
import { FAIL_DELAY_MS, LOGIN_LIMIT } from '../../src/auth/attempts.js';
import { PASSWORD, setup } from './auth-app.js';

type Outcome = { ok: boolean; code?: number; ms: number };

function connect(port: number, username: string, password: string): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const c = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
      username,
      password,
      reconnectPeriod: 0,
      connectTimeout: 10_000,
    });
    const done = (o: Omit<Outcome, 'ms'>) => (c.end(true), resolve({ ...o, ms: Date.now() - started }));
    c.once('connect', () => done({ ok: true }));
    c.once('error', (e) => done({ ok: false, code: (e as { code?: number }).code }));
    c.once('close', () => done({ ok: false }));
  });
}

t.test(
  '60 wrong MQTT passwords from one address: limited like REST, each refusal after the constant delay, one log line',
  async (t) => {
    const { rt, log } = await setup(t);
    const port = rt.app.mqtt.brokerPort!;
    const started = Date.now();
    const guesses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => connect(port, 'alice', `guess number ${i}`)),
    );
    const took = Date.now() - started;
    t.equal(guesses.filter((g) => g.ok).length, 0, 'no guess gets in');
    t.ok(
      guesses.every((g) => g.code === 5),
      'every guess gets CONNACK 5',
    );
    const fastest = Math.min(...guesses.map((g) => g.ms));
    t.ok(
      fastest >= FAIL_DELAY_MS - 5,
      `the fastest refusal came after ${fastest} ms, not before the constant ${FAIL_DELAY_MS} ms`,
    );
    t.comment(`60 wrong CONNECTs answered in ${took} ms`);

    const right = await connect(port, 'alice', PASSWORD);
    t.equal(right.ok, false, 'the right password is refused too while the address is over the limit');
    t.equal(right.code, 5);

    const lines = log()
      .split('\n')
      .filter((l) => /not authorized/.test(l) && JSON.parse(l).level >= 30);
    t.equal(lines.length, 1, `one log line (info or above) for the address, not one per attempt (got ${lines.length})`);
    t.match(lines[0], /127\.0\.0\.1/, 'the line names the address');
    t.equal(rt.app.mqtt.connected, true, "the service's own client is not affected");
  },
);

t.test('REST logins and MQTT CONNECTs share one budget per address; good logins do not use it', async (t) => {
  const { rt, call } = await setup(t);
  const port = rt.app.mqtt.brokerPort!;
  for (let i = 0; i < 5; i++) t.equal((await connect(port, 'alice', PASSWORD)).ok, true, `good CONNECT ${i + 1}`);
  const half = Math.floor(LOGIN_LIMIT.max / 2);
  const rest = await Promise.all(
    Array.from({ length: half }, () =>
      call('POST', '/auth/login', { body: { username: 'alice', password: 'wrong password' } }),
    ),
  );
  t.same(
    rest.map((r) => r.status),
    Array(half).fill(401),
    `${half} wrong REST logins: 401`,
  );
  const broker = await Promise.all(
    Array.from({ length: LOGIN_LIMIT.max - half }, () => connect(port, 'alice', 'wrong password')),
  );
  t.ok(
    broker.every((b) => b.code === 5),
    `${LOGIN_LIMIT.max - half} wrong CONNECTs: refused`,
  );
  t.equal(
    (await connect(port, 'alice', PASSWORD)).ok,
    false,
    'then the right password over MQTT is refused: the REST failures counted',
  );
  const limited = await call('POST', '/auth/login', { body: { username: 'alice', password: PASSWORD } });
  t.equal(limited.status, 429, 'and over REST: 429, the MQTT failures counted');
  t.match(limited.body.message, /too many login attempts from this address/);
});

// Attempts still being checked count against the budget (that is what bounds parallel guesses),
// so a burst of right passwords from one address (a script opening many sessions at once) is
// refused too: the 429 must not tell those users their logins failed.
t.test('a burst of correct logins past the limit: 429 says too many attempts, not failed logins', async (t) => {
  const { call } = await setup(t);
  const burst = await Promise.all(
    Array.from({ length: LOGIN_LIMIT.max * 2 }, () =>
      call('POST', '/auth/login', { body: { username: 'alice', password: PASSWORD } }),
    ),
  );
  const limited = burst.filter((r) => r.status === 429);
  t.same(
    burst.filter((r) => r.status !== 429).map((r) => r.status),
    Array(burst.length - limited.length).fill(200),
    'every other one logged in',
  );
  t.ok(limited.length > 0, `the ones past the ${LOGIN_LIMIT.max} in progress get 429`);
  for (const r of limited) {
    t.notMatch(r.body.message, /failed/, `no login failed: ${r.body.message}`);
    t.match(r.body.message, /^too many login attempts from this address .*; try again in 1 s$/);
  }
  t.equal(
    (await call('POST', '/auth/login', { body: { username: 'alice', password: PASSWORD } })).status,
    200,
    'once the burst is answered (its checks done, their slots given back) the right password logs in',
  );
});
