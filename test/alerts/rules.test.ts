// Issue 26: rules are data with a schema: edited through the API (bad input is a 422 naming the
// field), a block's settings follow its rename and go away with its delete; a bad alerts config
// section is a clear error naming the key.
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../src/config.js';
import { startApp } from '../helpers/app.js';
import { at } from '../helpers/json.js';

t.test('rules edited from the API follow a rename and go away with a delete', async (t) => {
  const running = await startApp({ hardware: 'sim' });
  t.teardown(() => running.close());
  const put = (body: unknown) =>
    fetch(`${running.base}/alerts/rules`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  const bad = await put({ sensorNull: { after: 'soon' } });
  t.equal(bad.status, 422);
  t.match(at(bad.body, 'message'), 'sensorNull.after');
  t.equal(at(bad.body, 'validation', 0, 'path'), 'sensorNull.after');
  // 1E400 is parsed as Infinity, which the refusal quoted as JSON would write it: "got null".
  const huge = await fetch(`${running.base}/alerts/rules`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: '{"sensorNull": {"after": 1E400}}',
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
  t.equal(huge.status, 422);
  t.match(at(huge.body, 'message'), /sensorNull\.after: is a number too large for JSON to hold/);
  t.notMatch(at(huge.body, 'message'), /got null/);
  const unknown = await put({ sensorNul: {} });
  t.equal(unknown.status, 422, 'an unknown rule is refused');

  t.equal((await running.post('blocks/create', { id: 'Probe', type: 'TempSensorMock', data: {} })).status, 201);
  const ok = await put({ sensorNull: { after: 30 }, blocks: { Probe: { after: 5 } } });
  t.equal(ok.status, 200);
  t.equal(at(ok.body, 'rules', 'sensorNull', 'after'), 30);
  t.equal(at(ok.body, 'rules', 'setpointBand', 'band'), 2, 'defaults fill the rest');

  t.equal((await running.post('blocks/rename', { existing: 'Probe', desired: 'Beer Probe' })).status, 200);
  const doc = () => running.app.documents.get('edge-one', 'alerts') as any;
  t.same(doc().blocks, { 'Beer Probe': { after: 5 } }, 'the settings follow the rename');
  t.equal((await running.post('blocks/delete', { id: 'Beer Probe' })).status, 200);
  t.same(doc().blocks, {}, 'the settings go away with the delete');
  t.equal(doc().sensorNull.after, 30, 'the other rules stay');
});

t.test("a block's settings from the config file follow its rename too", async (t) => {
  // The config file keeps them under the old name, so only the document can carry them: the
  // renamed block lost them (its sensor alert came after the default 60 s, not its own 5 s).
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alerts-cfg-'));
  const config = path.join(dir, 'c.json');
  writeFileSync(
    config,
    JSON.stringify({ alerts: { rules: { blocks: { Probe: { after: 5, band: 1 }, Other: { enabled: false } } } } }),
  );
  const running = await startApp({ hardware: 'sim', config });
  t.teardown(() => running.close());
  const rules = async () => at(await (await fetch(`${running.base}/alerts/rules`)).json(), 'rules', 'blocks');
  t.equal((await running.post('blocks/create', { id: 'Probe', type: 'TempSensorMock', data: {} })).status, 201);
  t.equal((await running.post('blocks/create', { id: 'Other', type: 'TempSensorMock', data: {} })).status, 201);
  const put = await fetch(`${running.base}/alerts/rules`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ blocks: { Probe: { after: 7 } } }),
  });
  t.equal(put.status, 200);
  t.equal((await running.post('blocks/rename', { existing: 'Probe', desired: 'Beer Probe' })).status, 200);
  t.equal((await running.post('blocks/rename', { existing: 'Other', desired: 'Spare' })).status, 200);
  const after = (await rules()) as Record<string, unknown>;
  t.same(after['Beer Probe'], { after: 7, band: 1 }, "the file's settings under the document's");
  t.same(after.Spare, { enabled: false }, "the file's settings alone");
});

t.test('a backup load that numbers the same blocks differently is no rename', async (t) => {
  const running = await startApp({ hardware: 'sim' });
  t.teardown(() => running.close());
  t.equal((await running.post('blocks/create', { id: 'Probe', type: 'TempSensorMock', data: {} })).status, 201);
  t.equal((await running.post('blocks/create', { id: 'Other', type: 'TempSensorMock', data: {} })).status, 201);
  const blocks = { Probe: { after: 5 }, Other: { enabled: false } };
  const put = await fetch(`${running.base}/alerts/rules`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ blocks }),
  });
  t.equal(put.status, 200);
  const backup = (await running.post('blocks/backup/save')).body as { blocks: Array<{ id: string; nid: number }> };
  const probe = backup.blocks.find((b) => b.id === 'Probe')!;
  const other = backup.blocks.find((b) => b.id === 'Other')!;
  [probe.nid, other.nid] = [other.nid, probe.nid];
  t.equal((await running.post('blocks/backup/load', backup)).status, 200);
  const read = await running.post('blocks/read', { id: 'Probe' });
  t.equal(read.body.nid, probe.nid, 'the load gave Probe the number Other had');
  const rules = async () => at(await (await fetch(`${running.base}/alerts/rules`)).json(), 'rules', 'blocks');
  t.same(await rules(), blocks, 'each block keeps its own settings');
  // Renames after a load that moved a block to a free number are followed, a rename back to the
  // name included (the name's old number, kept from before the load, took it for another block's).
  probe.nid = Math.max(probe.nid, other.nid) + 50;
  t.equal((await running.post('blocks/backup/load', backup)).status, 200);
  t.equal((await running.post('blocks/read', { id: 'Probe' })).body.nid, probe.nid);
  t.equal((await running.post('blocks/rename', { existing: 'Probe', desired: 'Beer Probe' })).status, 200);
  t.same(await rules(), { 'Beer Probe': { after: 5 }, Other: { enabled: false } }, 'a rename after the load');
  t.equal((await running.post('blocks/rename', { existing: 'Beer Probe', desired: 'Probe' })).status, 200);
  t.same(await rules(), blocks, 'and the rename back');
});

t.test('a bad alerts config section names the key', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alerts-cfg-'));
  const file = path.join(dir, 'c.json');
  writeFileSync(file, JSON.stringify({ alerts: { ntfy: { url: 'ntfy.sh/topic' } } }));
  t.throws(() => loadConfig({ config: file }, {}), ConfigError);
  t.throws(() => loadConfig({ config: file }, {}), /alerts.*ntfy\.url/);
  writeFileSync(file, JSON.stringify({ alerts: { remindHours: 2, rules: { sensorNull: { after: 10 } } } }));
  const cfg = loadConfig({ config: file }, {});
  t.equal(cfg.alerts!.remindHours, 2);
  t.equal(cfg.alerts!.retryBaseMs, 5000, 'defaults from the schema');
});

t.test('every duration of the rules is bounded to what a brewer means (issue 45.5)', async (t) => {
  const running = await startApp({ hardware: 'sim' });
  t.teardown(() => running.close());
  const put = (body: unknown) =>
    fetch(`${running.base}/alerts/rules`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const month = 30 * 24 * 3600;
  const refused: Array<[string, unknown]> = [
    ['remindHours', { remindHours: 1e-9 }],
    ['remindHours', { remindHours: 0.2 }],
    ['remindHours', { remindHours: 721 }],
    ['sensorNull.after', { sensorNull: { after: 1.7e308 } }],
    ['setpointBand.after', { setpointBand: { after: month + 1 } }],
    ['outputOn.after', { outputOn: { after: 1e12 } }],
    ['service.unreachableAfter', { service: { unreachableAfter: -1 } }],
    ['resolveAfter', { resolveAfter: month * 2 }],
    ['blocks.Probe.after', { blocks: { Probe: { after: 1e300 } } }],
    ['blocks.Probe.onAfter', { blocks: { Probe: { onAfter: month + 0.5 } } }],
  ];
  for (const [path, body] of refused) {
    const r = await put(body);
    t.equal(r.status, 422, `${JSON.stringify(body)}: 422`);
    t.equal(at(r.body, 'validation', 0, 'path'), path, `naming ${path}`);
  }
  const edge = await put({
    remindHours: 0.25,
    sensorNull: { after: month },
    resolveAfter: 0,
    blocks: { Probe: { onAfter: month } },
  });
  t.equal(edge.status, 200, 'a reminder every 15 minutes and 30 days are taken');

  // The config's starting value has the same bound.
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alerts-cfg-'));
  const file = path.join(dir, 'c.json');
  writeFileSync(file, JSON.stringify({ alerts: { remindHours: 1e-9 } }));
  t.throws(() => loadConfig({ config: file }, {}), /alerts\.remindHours/);
  writeFileSync(file, JSON.stringify({ alerts: { rules: { sensorNull: { after: 1.7e308 } } } }));
  t.throws(() => loadConfig({ config: file }, {}), /alerts\.rules\.sensorNull\.after/);
});
