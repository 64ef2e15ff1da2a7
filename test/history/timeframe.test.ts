// The query window of the timeseries API (src/history/timeframe.ts): an instant outside the years
// 1 to 9999 is the client's mistake, a 422 naming the member, never a 500 (a Date that cannot be
// printed) nor a window a store cannot take (VictoriaMetrics answers every point for a start far
// past its range, or refuses the step).
import t from 'tap';
import { QueryError, parseInstant, selectTimeframe } from '../../src/history/timeframe.js';

const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

const NOW = Date.parse('2026-06-01T12:00:00Z');

/** The QueryError selectTimeframe throws for `q`, or what it threw or returned instead. */
function refusal(q: Record<string, unknown>): QueryError | string {
  try {
    return `accepted: ${JSON.stringify(selectTimeframe(q, NOW))}`;
  } catch (e) {
    return e instanceof QueryError ? e : `threw ${(e as Error).name}: ${(e as Error).message}`;
  }
}

t.test('instants outside the years 1 to 9999 are refused with a QueryError naming the member', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ start: 1e20, end: 1e19 }, 'start'],
    [{ start: 1e20 }, 'start'],
    [{ start: -1e20 }, 'start'],
    [{ start: '1e20' }, 'start'],
    [{ start: '100000000000000000000' }, 'start'],
    [{ end: 1e17 }, 'end'],
    [{ start: '+100000-01-01T00:00:00Z' }, 'start'],
    [{ start: '-000001-01-01T00:00:00Z' }, 'start'],
    [{ start: 0, end: 9e15 }, 'end'],
    [{ start: '9999-12-31T00:00:00Z', duration: '2d' }, 'duration'],
    [{ end: '0001-01-01T12:00:00Z', duration: '1d' }, 'duration'],
  ];
  for (const [q, field] of cases) {
    const e = refusal(q);
    t.type(e, QueryError, JSON.stringify(q));
    if (!(e instanceof QueryError)) {
      t.comment(e);
      continue;
    }
    t.equal(e.status, 422, `${JSON.stringify(q)}: 422`);
    t.equal(e.field, field, `${JSON.stringify(q)}: names ${field}`);
    t.match(e.message, field === 'duration' ? /years 1 to 9999/ : new RegExp(`^${field} must be`));
  }
});

t.test('the years 1 to 9999 themselves are taken', async (t) => {
  t.equal(parseInstant('0001-01-01T00:00:00Z', 'start'), FIRST_INSTANT);
  t.equal(parseInstant('9999-12-31T23:59:59.999Z', 'end'), LAST_INSTANT);
  t.equal(parseInstant(0, 'start'), 0, 'epoch 0');
  t.equal(parseInstant('1780000000', 'start'), 1_780_000_000_000, 'seconds as text');
  t.equal(parseInstant(1_780_000_000_000, 'start'), 1_780_000_000_000, 'milliseconds');
  t.same(selectTimeframe({ start: '0001-01-01T00:00:00Z', end: '9999-12-31T23:59:59Z' }, NOW).start, FIRST_INSTANT);
  t.match(refusal({ start: '2026-06-02T00:00:00Z', end: '2026-06-01T00:00:00Z' }), { message: /is after end/ });
});
