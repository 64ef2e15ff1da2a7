// A backup whose blocks hold an integer a double cannot hold (a nid or a value of
// 12345678901234567890, read by JSON.parse as 12345678901234567168 and written back as
// 12345678901234567000): the load's messages, and its refusal when no block can be loaded, quote
// the digits sent, as every other refusal does (ef16538), not a number the user never wrote.
// Blocks/backup/load over REST and blocks/backup/stored/load of a file put in backups/ by hand.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp } from '../helpers/app.js';

const BIG = '12345678901234567890';
const ROUNDED = /12345678901234567000|12345678901234567168|123456789012345680000/;

/** The app's own backup, as text, with two more blocks: one with a nid past 2^64, one with a channel past it. */
function withBigBlocks(saved: unknown): string {
  const text = JSON.stringify(saved);
  const more = `,{"id":"Big","nid":${BIG},"type":"TempSensorMock","data":{}},{"id":"Relay","nid":300,"type":"DigitalActuator","data":{"channel":${BIG}1}}]`;
  return text.replace(/\]\s*,\s*"store"/, `${more},"store"`);
}

t.test('a backup load quotes a big integer of a block as it was sent', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-big-backup-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const { post, close } = await startApp({}, { listen: false, dataDir });
  t.teardown(close);
  await post('blocks/create', { id: 'Probe', type: 'TempSensorMock', data: {} });
  const saved = (await post('blocks/backup/save')).body;
  const text = withBigBlocks(saved);

  const loaded = await post('blocks/backup/load', undefined, text);
  t.equal(loaded.status, 200, loaded.raw);
  t.equal(loaded.body.failures.length, 2, 'both blocks fail');
  t.match(loaded.body.failures[0], `(id 'Big', nid ${BIG}, type 'TempSensorMock') failed`, 'the nid as sent');
  t.match(loaded.body.failures[1], `data.channel: must be at most 64, got ${BIG}1`, 'the value as sent');
  t.notMatch(loaded.raw, ROUNDED, 'no number the user did not send');
  t.equal((await post('blocks/read', { id: 'Probe' })).status, 200, 'the loadable block loaded');

  // No block can be loaded: the refusal names the nid as sent too.
  const none = await post(
    'blocks/backup/load',
    undefined,
    `{"blocks":[{"id":"Big","nid":${BIG},"type":"TempSensorMock","data":{}}]}`,
  );
  t.equal(none.status, 422, none.raw);
  t.match(
    none.body.message,
    `no block of the backup can be loaded, so nothing was changed: block 0 (id 'Big', nid ${BIG},`,
  );
  t.notMatch(none.raw, ROUNDED);

  // A file put in backups/ by hand, loaded by name: what the file says.
  mkdirSync(path.join(dataDir, 'backups'), { recursive: true });
  writeFileSync(path.join(dataDir, 'backups', 'by-hand.json'), text);
  const stored = await post('blocks/backup/stored/load', { name: 'by-hand' });
  t.equal(stored.status, 200, stored.raw);
  t.match(stored.body.failures[0], `nid ${BIG},`);
  t.notMatch(stored.raw, ROUNDED);
});

// A backup uploaded to be stored (stored/upload) was written as JSON.parse read it: the file held
// 9007199254740992 where the user sent 9007199254740993, and so did the upload's answer, the
// download and the load's refusal of that block. It is stored as sent.
t.test('an uploaded backup is stored as sent: its file, download and load quote the number sent', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-big-upload-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const { post, close } = await startApp({}, { listen: false, dataDir });
  t.teardown(close);
  await post('blocks/create', { id: 'Probe', type: 'TempSensorMock', data: {} });
  const saved = JSON.stringify({ name: 'big', ...(await post('blocks/backup/save')).body });
  const SENT = '9007199254740993';
  const READ = /9007199254740992/;
  const relay = `{"id":"Relay","nid":300,"type":"DigitalActuator","data":{"channel":${SENT}}}`;
  const text = saved.replace(/\]\s*,\s*"store"/, `,${relay}],"store"`);
  t.not(text, saved, 'the block is in the backup');

  const up = await post('blocks/backup/stored/upload', undefined, text);
  t.equal(up.status, 200, up.raw);
  t.match(up.raw, `"channel":${SENT}`, 'the answer: what was sent');
  t.notMatch(up.raw, READ);
  const file = readFileSync(path.join(dataDir, 'backups', 'big.json'), 'utf8');
  t.match(file, `"channel":${SENT}`, 'the file: what was sent');
  t.notMatch(file, READ);
  const down = await post('blocks/backup/stored/download', { name: 'big' });
  t.equal(down.status, 200, down.raw);
  t.match(down.raw, `"channel":${SENT}`, 'the download: what was sent');
  t.notMatch(down.raw, READ);
  t.same(down.body, JSON.parse(text), 'the download is the backup uploaded');

  const loaded = await post('blocks/backup/stored/load', { name: 'big' });
  t.equal(loaded.status, 200, loaded.raw);
  t.match(loaded.body.failures, [new RegExp(`data\\.channel: must be at most 64, got ${SENT}`)]);
  t.notMatch(loaded.raw, READ, 'no number the user did not send');
  t.equal((await post('blocks/read', { id: 'Probe' })).status, 200, 'the loadable block loaded');
});
