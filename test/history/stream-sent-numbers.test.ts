// The history websocket's error frames quote an integer a double cannot hold as it was sent
// (12345678901234567890, not 12345678901234567000 as JSON.parse reads it), as the ranges route's
// 422 does (ef16538): the number named is one the client wrote.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { until } from '../mqtt/fixtures.js';
import { openHistoryStream } from '../helpers/history-stream.js';

const BIG = '12345678901234567890';
const ROUNDED = /12345678901234567000|12345678901234567168/;

t.test('a stream command refused for a big integer quotes it as sent', async (t) => {
  const rt = await startApp({});
  t.teardown(() => rt.close());
  const root = rt.base.replace(/\/edge-one$/, '');
  const { ws, frames } = await openHistoryStream(t, root);
  const commands = [
    `{"id":"a","command":"ranges","query":{"fields":["x"],"start":${BIG}}}`,
    `{"id":"b","command":${BIG}}`,
    `{"id":"c","command":"ranges","query":{"fields":["x"],"duration":${BIG}}}`,
    `{"id":"d","command":"metrics","query":{"fields":[${BIG}]}}`,
  ];
  for (const c of commands) ws.send(c);
  await until(() => frames.filter((f) => f.error).length === commands.length, 'an error frame for each');
  const errors = frames.filter((f) => f.error).map((f) => f.error as string);
  t.match(errors[0], `start must be a date in the years 1 to 9999, got ${BIG}`);
  t.match(errors[1], `command must be ranges, metrics or stop, got ${BIG}`);
  t.match(errors[2], `duration ${BIG} is not a duration`);
  t.match(errors[3], `fields.0: must be a non-empty string, got ${BIG}`);
  for (const e of errors) t.notMatch(e, ROUNDED, `no number the client did not send: ${e}`);

  // The route of the same query says the same.
  const res = await fetch(`${root}/history/timeseries/ranges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"fields":["x"],"start":${BIG}}`,
  });
  t.equal(res.status, 422);
  t.match(await res.text(), `got ${BIG}`);
});
