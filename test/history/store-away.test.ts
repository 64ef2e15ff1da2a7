// The history database away (VictoriaMetrics not running): every query says so, 503 "history
// database unavailable" as ping does, not a 500 "internal error", and the CSV route not a
// fastify error about its payload; a ranges command on the history stream is answered with the
// error, not left without an answer. A real VictoriaMetrics then comes up on the port: queries
// answer again.
// tags: slow (a real VictoriaMetrics)
import t from 'tap';
import WebSocket from 'ws';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';
import { freePort } from '../helpers/mosquitto.js';
import { startVictoria } from '../helpers/victoria.js';

t.test('VictoriaMetrics away: queries are 503 naming it, the stream answers with the error', async (t) => {
  const port = await freePort();
  const rt = await startApp({ history: 'victoria', historyUrl: `http://127.0.0.1:${port}` });
  t.teardown(() => rt.close());
  const root = new URL(rt.base).origin;
  const post = async (route: string, body?: unknown) => {
    const res = await fetch(`${root}/history/timeseries/${route}`, {
      method: 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const queries: Array<[string, unknown]> = [
    ['ranges', { fields: ['other/v'], duration: '1h' }],
    ['fields', { duration: '1h' }],
    ['csv', { fields: ['other/v'], precision: 's', duration: '1h' }],
    ['ping', undefined],
  ];
  for (const [route, body] of queries) {
    const res = await post(route, body);
    t.equal(res.status, 503, `${route}: 503`);
    t.match(JSON.parse(res.text), { message: /^history database unavailable: / }, `${route}: the message says why`);
  }

  const ws = new WebSocket(`${root.replace(/^http/, 'ws')}/history/timeseries/stream`);
  t.teardown(() => ws.terminate());
  await new Promise((r) => ws.once('open', r));
  let timer: NodeJS.Timeout | undefined;
  const answer = new Promise<any>((r) => {
    ws.once('message', (d) => r(JSON.parse(d.toString())));
    timer = setTimeout(() => r('no answer'), limit(10_000));
  });
  ws.send(JSON.stringify({ id: 'q1', command: 'ranges', query: { fields: ['other/v'], duration: '1h' } }));
  t.match(await answer, { id: 'q1', error: /^history database unavailable: / }, 'the stream answers the command');
  clearTimeout(timer);

  const vm = await startVictoria(port);
  t.teardown(() => vm.stop());
  t.equal((await post('ranges', { fields: ['other/v'], duration: '1h' })).status, 200, 'back: ranges answers');
  t.equal((await post('csv', { fields: ['other/v'], precision: 's', duration: '1h' })).status, 200, 'and csv');
});
