// A body that is not UTF-8 (Windows PowerShell 5 sends a string body as ISO-8859-1) was decoded
// as UTF-8 anyway: each byte that is not UTF-8 became U+FFFD, so `{"id": "Bière"}` created a
// block "Bi\uFFFDre" and a datastore document kept "Caf\uFFFD", with a 201/200. Such a body is a
// 400 naming the encoding now, and nothing is stored; UTF-8 bodies (with or without a BOM or a
// charset) are taken as before.
import t from 'tap';
import { startApp } from '../helpers/app.js';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

t.test('a body that is not UTF-8 is a 400 naming the encoding, and nothing is stored', async (t) => {
  const { app, base, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const send = async (url: string, payload: Buffer, contentType = 'application/json; charset=iso-8859-1') => {
    const res = await app.http.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });
    return { status: res.statusCode, body: res.json() };
  };

  const block = await send(`${base}/blocks/create`, latin1('{"id": "Bière", "type": "TempSensorMock", "data": {}}'));
  t.equal(block.status, 400, JSON.stringify(block.body));
  t.match(block.body.message, /not UTF-8/);
  const ids = (await send(`${base}/blocks/all/read`, Buffer.from('{}'))).body.map((b: { id: string }) => b.id);
  t.notOk(
    ids.some((id: string) => id.startsWith('Bi')),
    'no block was created',
  );

  const doc = await send(
    '/history/datastore/set',
    latin1('{"value": {"namespace": "brewery", "id": "note", "text": "Café"}}'),
    'application/json',
  );
  t.equal(doc.status, 400, JSON.stringify(doc.body));
  const got = await send('/history/datastore/get', Buffer.from('{"namespace": "brewery", "id": "note"}'));
  t.same(got.body, { value: null }, 'no document was stored');

  const login = await send('/auth/login', latin1('{"username": "brewer", "password": "pässword"}'));
  t.equal(login.status, 400, 'the login route says so too');
  t.match(login.body.message, /not UTF-8/);

  const utf8 = await send(
    `${base}/blocks/create`,
    Buffer.from('\uFEFF{"id": "Bière", "type": "TempSensorMock", "data": {}}', 'utf8'),
    'application/json; charset=utf-8',
  );
  t.equal(utf8.status, 201, 'UTF-8 is taken, a BOM too');
  t.equal(utf8.body.id, 'Bière');
});
