// The refusals of a block body, a rename, a backup and an ident ({id} or {nid}) joined field and
// message with a space ("invalid block: id must be ..."), the route schemas and the block data
// with a colon ("data.channel: must be ..."): a client splitting on ": " got the field only from
// some. One wording now (issuesText, src/shared/json.ts).
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('every refusal of a block body joins field and message with a colon', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const create = await post('blocks/create', { id: 7, type: 'TempSensorMock', data: {} });
  t.equal(create.status, 422, create.raw);
  t.match(create.body.message, /^invalid block: id: must be/);
  t.equal((await post('blocks/create', { id: 'Probe', type: 'TempSensorMock', data: {} })).status, 201);
  const rename = await post('blocks/rename', { existing: 'Probe', desired: ' padded' });
  t.equal(rename.status, 422, rename.raw);
  t.match(rename.body.message, /^invalid rename: desired: must be/);
  const backup = await post('blocks/backup/load', { blocks: 'none' });
  t.equal(backup.status, 422, backup.raw);
  t.match(backup.body.message, /^invalid backup: blocks: required/);
  const read = await post('blocks/read', { serviceId: 5 });
  t.equal(read.status, 422, read.raw);
  t.match(read.body.message, /serviceId: must be a string/);
});
