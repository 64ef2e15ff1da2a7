// A channel URL the pattern took (it looks only at `http://` and the first character of the host)
// but no send can use: `http://a b/hook` was stored, GET /alerts/channels showed the channel set
// up with no error, and every alert failed with "cannot connect (ERR_INVALID_URL)". It is a 422
// naming the field now, and nothing is stored.
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('PUT alerts/channels refuses a URL that does not parse, and stores nothing', async (t) => {
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
  const channels = (await app.http.inject({ method: 'GET', url: `${base}/alerts/channels` })).json().channels;
  t.same(
    channels.filter((c: { source: string | null }) => c.source !== null).map((c: { name: string }) => c.name),
    [],
    'no channel was set up',
  );
  const ok = await put('webhook', { url: 'http://[::1]:8123/api/webhook/brew' });
  t.equal(ok.status, 200, 'a URL that parses is taken');
});
