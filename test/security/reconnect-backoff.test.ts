// A broker that comes back after a long outage is seen within 5 s (issue 15, item 6): the
// reconnect backoff is capped at 5 s, and the connection retries on the backoff's delays, so the
// first retry after the broker is back connects. Measured against a real Mosquitto killed and
// restarted, with the delays scaled down (the default's are checked on their own).
import t from 'tap';
import { silentLogger } from '../../src/log.js';
import { Backoff, RECONNECT_CAP_MS } from '../../src/mqtt/backoff.js';
import { MqttConnection } from '../../src/mqtt/connection.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { until } from '../mqtt/fixtures.js';

t.test('the default backoff never waits longer than 5 s', async (t) => {
  const b = new Backoff();
  const delays = Array.from({ length: 20 }, () => b.next());
  t.equal(RECONNECT_CAP_MS, 5000);
  t.ok(Math.max(...delays) <= 5000, `longest delay ${Math.max(...delays)} ms`);
  t.equal(delays.at(-1), 5000, 'it reaches the cap');
});

/** A backoff that records the delays it hands out. */
class RecordingBackoff extends Backoff {
  readonly delays: number[] = [];
  override next(): number {
    const delay = super.next();
    this.delays.push(delay);
    return delay;
  }
}

t.test('after a long outage of a real Mosquitto, the first retry after it is back connects', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  // The default's 500 ms doubling up to 5 s, scaled down 25 times.
  const backoff = new RecordingBackoff(20, 200);
  const conn = new MqttConnection({ url: broker.url, clientId: 'backoff-test', log: silentLogger, backoff });
  conn.start();
  t.teardown(() => conn.stop());
  await until(() => conn.connected, 'the first connection');

  await broker.kill();
  await until(() => !conn.connected, 'the connection to see the outage', 3000);
  // A long outage: the delays grow to the cap and stay there.
  await until(() => backoff.delays.filter((d) => d === 200).length >= 3, 'three retries at the cap', 10_000);
  t.same(backoff.delays.slice(0, 5), [20, 40, 80, 160, 200], 'the delays double up to the cap');
  await broker.restart();
  const failedBefore = backoff.delays.length;
  await until(() => conn.connected, 'the connection to come back', 10_000);
  const failedAfter = backoff.delays.length - failedBefore;
  t.ok(
    failedAfter <= 1,
    `connected at the first retry after the broker accepted connections again (${failedAfter} failed in between: one may have been under way)`,
  );
  t.ok(Math.max(...backoff.delays) <= 200, 'no retry waited longer than the cap');
  backoff.delays.length = 0;
  await broker.kill();
  await until(() => backoff.delays.length >= 2, 'retries after a second outage', 3000);
  t.same(backoff.delays.slice(0, 2), [20, 40], 'a connection resets the backoff: the next outage starts short again');
});
