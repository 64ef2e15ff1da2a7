// Backup files copied into backups/ by hand may have names the API refuses (a space, an accent, a
// quote, a leading dot, more than 100 characters). The list offers only backups that can be
// downloaded and loaded by the name it gives; each file it leaves out is logged once, with why.
import t from 'tap';
import { copyFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startApp } from '../helpers/app.js';
import { logLines } from '../helpers/log-lines.js';

const ODD = ['my backup', 'café', "brewer's", '.hidden', 'x'.repeat(101), '', 'a/b'.replace('/', '\\')];

t.test('stored/all lists only backups whose name the API takes; the others are logged once', async (t) => {
  const { log, lines } = logLines();
  const { post, dataDir, close } = await startApp({}, { listen: false, log });
  t.teardown(close);
  await post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 18 } });
  t.equal((await post('blocks/backup/stored/save', { name: 'good' })).status, 200);
  const dir = path.join(dataDir, 'backups');
  for (const name of ODD) copyFileSync(path.join(dir, 'good.json'), path.join(dir, `${name}.json`));
  // good.json, its checksum good.json.sha256 (which the copies have not) and the copies.
  t.equal(readdirSync(dir).length, ODD.length + 2, 'every copy is in the directory');

  const listed = (await post('blocks/backup/stored/all')).body as Array<{ name: string }>;
  for (const { name } of listed) {
    const download = await post('blocks/backup/stored/download', { name });
    t.equal(download.status, 200, `listed ${JSON.stringify(name)} can be downloaded`);
    const load = await post('blocks/backup/stored/load', { name });
    t.equal(load.status, 200, `listed ${JSON.stringify(name)} can be loaded`);
  }
  t.same(
    listed.map((b) => b.name),
    ['good'],
    'only the backup the API takes by name is listed',
  );
  await post('blocks/backup/stored/all');
  const skipped = lines.filter((l) => /cannot be (listed|loaded)|not listed/.test(l.msg));
  t.equal(skipped.length, ODD.length, 'one line for each file left out, not one for each list');
  for (const name of ODD)
    t.ok(
      skipped.some((l) => l.msg.includes(`${name}.json`) && /1-100 letters, digits/.test(l.msg)),
      `${JSON.stringify(name)}.json is named with the rule its name breaks`,
    );
});
