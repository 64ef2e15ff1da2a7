// Alert channel settings a send cannot use are refused where they come in (REST here; the
// config file and stored settings go through the same schema), naming the field.
//
// A channel URL the pattern took (it looks only at `http://` and the first character of the host)
// but no send can use: `http://a b/hook` was stored, GET /alerts/channels showed the channel set
// up with no error, and every alert failed with "cannot connect (ERR_INVALID_URL)". It is a 422
// naming the field now, and nothing is stored.
//
// A webhook header or ntfy token that fetch cannot send: the header name's pattern only chose
// which names the value rule applied to (no additionalProperties), and values were any string, so
// `{"X Gotify Key": "k"}` (the dashboard form's line "X Gotify Key: k"), a name with a colon or a
// token with a line break was stored (200, no error shown) and every alert then failed with
// "cannot connect (Headers.append: "Bearer tk_a\nb" is an invalid header value.)": a message that
// quoted the secret into the log and the alert history a viewer reads. They are a 422 naming the
// field now, without quoting the value, and nothing is stored; a send that meets such a header
// anyway does not quote it.
import t, { type Test as Tap } from 'tap';
import { httpCall } from '../../src/alerts/channels/http.js';
import { startApp } from '../helpers/app.js';

const SECRET = 'tk_s3cret';

/** The app without sockets; `put` sets up a channel, `setUp` lists the channels set up. */
async function channelApp(t: Tap) {
  const { app, base, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const put = async (name: string, body: unknown) => {
    const res = await app.http.inject({
      method: 'PUT',
      url: `${base}/alerts/channels/${name}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.json() };
  };
  const setUp = async () =>
    (
      (await app.http.inject({ method: 'GET', url: `${base}/alerts/channels` })).json().channels as Array<{
        name: string;
        source: string | null;
      }>
    )
      .filter((c) => c.source !== null)
      .map((c) => c.name);
  return { put, setUp };
}

t.test('PUT alerts/channels refuses a URL that does not parse, and stores nothing', async (t) => {
  const { put, setUp } = await channelApp(t);
  for (const url of ['http://a b/hook', 'http://[::1/hook', 'http://exa%mple/hook', 'http://host:99999/hook']) {
    for (const name of ['webhook', 'ntfy', 'heartbeat']) {
      const res = await put(name, { url });
      t.equal(res.status, 422, `${name} ${url}: ${JSON.stringify(res.body)}`);
      t.same(
        res.body.validation?.map((v: { path: string }) => v.path),
        ['url'],
        'names the field',
      );
      t.match(res.body.message, /must be an http:\/\/ or https:\/\/ URL/);
    }
  }
  t.same(await setUp(), [], 'no channel was set up');
  const ok = await put('webhook', { url: 'http://[::1]:8123/api/webhook/brew' });
  t.equal(ok.status, 200, 'a URL that parses is taken');
});

t.test('PUT alerts/channels refuses headers and tokens HTTP cannot carry, and stores nothing', async (t) => {
  const { put, setUp } = await channelApp(t);
  const url = 'http://127.0.0.1:9/hook';
  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['webhook', { url, headers: { 'X Gotify Key': SECRET } }, 'headers.X Gotify Key'],
    ['webhook', { url, headers: { 'X-Gotify-Key:': SECRET } }, 'headers.X-Gotify-Key:'],
    ['webhook', { url, headers: { '': SECRET } }, 'headers.'],
    ['webhook', { url, headers: { 'X-Gotify-Key': `${SECRET}\r\nX-Other: 1` } }, 'headers.X-Gotify-Key'],
    ['webhook', { url, headers: { 'X-Gotify-Key': `${SECRET}€` } }, 'headers.X-Gotify-Key'],
    ['ntfy', { url, token: `${SECRET}\n` }, 'token'],
    ['ntfy', { url, token: `${SECRET}\u0000` }, 'token'],
  ];
  for (const [name, body, path] of bad) {
    const res = await put(name, body);
    t.equal(res.status, 422, `${name} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    t.same(
      res.body.validation?.map((v: { path: string }) => v.path),
      [path],
      'names the field',
    );
    t.notMatch(JSON.stringify(res.body), SECRET, 'the secret is not quoted back');
  }
  t.same(await setUp(), [], 'no channel was set up');
  t.equal((await put('webhook', { url, headers: { 'X-Gotify-Key': 'abc é' } })).status, 200, 'a valid header is taken');
  // Any HTTP token is a name fetch sends (a release before the check stored these, and sent them).
  t.equal((await put('webhook', { url, headers: { X_Api_Key: 'k', 'X.Key': 'k' } })).status, 200, 'X_Api_Key, X.Key');
  t.equal((await put('ntfy', { url, token: SECRET })).status, 200, 'a valid token is taken');
});

t.test('a header fetch refuses is not quoted in the failure', async (t) => {
  const failed = await httpCall('http://127.0.0.1:9/hook', {
    method: 'POST',
    headers: { authorization: `Bearer ${SECRET}\nx` },
    body: '',
    timeoutMs: 1000,
  }).then(
    () => null,
    (e: Error) => e.message,
  );
  t.ok(failed, 'the send fails');
  t.notMatch(String(failed), SECRET, 'without the secret');
  t.match(String(failed), /header name or value is not valid HTTP/, 'naming what is wrong');
});
