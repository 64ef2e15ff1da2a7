// What a WAIT_UNTIL time means. A date-time that names no zone is UTC (as the controller writes
// it back, and as Brewblox reads one), on a controller in any time zone; it was the service's own
// zone, while a date alone was UTC. A number is epoch seconds, or epoch milliseconds from 1e12
// (as Brewblox sends them); one between, which was read as milliseconds and became a date in the
// 1970s that a WAIT_UNTIL passes at once, is refused by name. A time past what Brewblox's WaitUntil
// holds (uint32 seconds: 2106-02-07T06:28:15Z), a year-5000 date that would wait forever, and
// what is no ISO-8601 date ('Dec 1 2026', '1 2 3', 30 February) are refused with the reason.
import t from 'tap';
import { decodeDatetime } from '../../src/codec/decode.js';
import { formatInstruction, parseInstruction } from '../../src/blocks/shared/sequence-syntax.js';
import { setup } from './setup.js';

const normalised = (time: string) => {
  const r = parseInstruction(`WAIT_UNTIL time=${time}`);
  return 'instruction' in r ? formatInstruction(r.instruction) : `error: ${r.error.message}`;
};

t.test('a date-time with no zone is UTC, whatever the service time zone is', async (t) => {
  const zone = process.env.TZ;
  t.teardown(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });
  for (const tz of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
    process.env.TZ = tz;
    t.equal(normalised('2026-12-01T10:00'), 'WAIT_UNTIL time=2026-12-01T10:00:00Z', `${tz}: date-time`);
    t.equal(normalised('2026-12-01 10:00:30'), 'WAIT_UNTIL time=2026-12-01T10:00:30Z', `${tz}: with a space`);
    t.equal(normalised('2026-12-01'), 'WAIT_UNTIL time=2026-12-01T00:00:00Z', `${tz}: date`);
    t.equal(normalised('2026-12-01T10:00+01:00'), 'WAIT_UNTIL time=2026-12-01T09:00:00Z', `${tz}: an offset`);
    t.equal(decodeDatetime('2026-12-01T10:00'), Date.UTC(2026, 11, 1, 10) / 1000, `${tz}: block data too`);
  }
});

t.test('a number is epoch seconds, or milliseconds from 1e12; one between is refused', async (t) => {
  t.equal(normalised('1764583200'), 'WAIT_UNTIL time=2025-12-01T10:00:00Z', 'seconds');
  t.equal(normalised('1764583200000'), 'WAIT_UNTIL time=2025-12-01T10:00:00Z', 'milliseconds');
  for (const n of ['200000000000', '99999999999', '4294967296', '999999999999'])
    t.match(normalised(n), /^error: time: .*neither epoch seconds .* nor epoch milliseconds/, n);
});

t.test('a time past what Brewblox holds, or no date, is refused with the reason', async (t) => {
  t.equal(normalised('2106-02-07T06:28:15Z'), 'WAIT_UNTIL time=2106-02-07T06:28:15Z', 'the last second it holds');
  for (const time of ['2106-02-07T06:28:16Z', '5000-01-01T00:00:00Z', '9999-12-31', '4294967296000'])
    t.match(normalised(time), /^error: time: must be at most 2106-02-07T06:28:15Z/, time);
  for (const time of ['Dec 1 2026', '1 2 3', '2026-02-30', '2026-12-01T25:00', 'tomorrow'])
    t.match(normalised(time), /^error: time: expected an ISO-8601 date-time/, time);
  const su = setup();
  su.create('seq', 'Sequence', { instructions: ['WAIT_UNTIL time=5000-01-01T00:00:00Z', 'WAIT'] });
  await su.run(1000);
  t.equal(su.data('seq').status, 'ERROR', 'the sequence does not wait for ever');
  t.match(su.data('seq').errorMessage, /^instruction 1: time: must be at most 2106-02-07T06:28:15Z/);
});
