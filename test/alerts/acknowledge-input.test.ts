// POST /alerts/acknowledge declared a schema that nothing checked: an empty body was a 500 and {}
// a 404 "no active alert with key 'undefined'". The route schema is now the check.
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('acknowledge: no body is 400, {} and a wrong key are 422 naming key, an unknown key 404', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const none = await post('alerts/acknowledge');
  t.equal(none.status, 400, none.raw);
  t.match(none.body.message, /the body must be a JSON object \{key\}/);
  for (const body of [{}, { key: '' }, { key: 5 }, { key: 'x', extra: true }]) {
    const res = await post('alerts/acknowledge', body);
    t.equal(res.status, 422, `${JSON.stringify(body)}: ${res.raw}`);
    t.ok(
      res.body.validation.some((v: { path: string }) => v.path === ('extra' in body ? 'extra' : 'key')),
      'names the field',
    );
  }
  const unknown = await post('alerts/acknowledge', { key: 'sensor:nobody' });
  t.equal(unknown.status, 404);
  t.match(unknown.body.message, /no active alert with key 'sensor:nobody'/);
});
