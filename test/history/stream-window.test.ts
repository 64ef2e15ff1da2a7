// A websocket stream with only a start is open-ended: after its initial ranges it is sent each new
// point as it arrives. A new point is only in its window once the start has come: a graph asked
// from a time still ahead of the controller's clock (a browser whose clock is ahead of a Pi that
// has not set its own yet) is sent nothing until then, not points from before the start it asked
// for, which it would draw as if they were in its window.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { until } from '../mqtt/fixtures.js';
import { openHistoryStream } from '../helpers/history-stream.js';

const FIELD = 'edge-one/SysInfo/uptime[second]';

t.test('an open-ended stream from a start still ahead is sent no point from before it', async (t) => {
  const rt = await startApp({ emitInterval: '200' });
  t.teardown(() => rt.close());
  const root = rt.base.replace(/\/edge-one$/, '');
  const { ws, frames } = await openHistoryStream(t, root);

  const start = Date.now() + 3_600_000;
  ws.send(JSON.stringify({ id: 'ahead', command: 'ranges', query: { fields: [FIELD], start: start / 1000 } }));
  await until(
    () => frames.some((f) => f.id === 'ahead' && f.data?.initial),
    'the initial frame of the stream ahead',
    30_000,
  );
  // A stream of the last minute, opened after it, hears of each new point after it (one socket, in order).
  ws.send(JSON.stringify({ id: 'now', command: 'ranges', query: { fields: [FIELD], duration: '1m' } }));
  await until(
    () => frames.filter((f) => f.id === 'now' && f.data?.initial === false).length >= 3,
    'three new points pushed to the stream of the last minute',
    30_000,
  );

  const ahead = frames.filter((f) => f.id === 'ahead');
  t.same(ahead[0].data.ranges, [], 'nothing stored from the start ahead');
  const early = ahead
    .filter((f) => f.data.initial === false)
    .flatMap((f) => f.data.ranges.flatMap((r: any) => r.values.map((v: [number, string]) => v[0])))
    .filter((time: number) => time * 1000 < start);
  t.same(early, [], 'no point from before the start');
});
