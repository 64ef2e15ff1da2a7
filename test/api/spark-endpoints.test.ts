// The controller endpoints the Brewblox UI calls beyond the spec (DESIGN §9.2), against the
// in-process app with a real SQLite file; persistence is checked by restarting on the same data dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp, type RunningApp } from '../helpers/app.js';
import { at, objectAt } from '../helpers/json.js';

const dirs: string[] = [];
t.teardown(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dataDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'edgeblocks-spark-api-'));
  dirs.push(d);
  return d;
}

async function call(rt: RunningApp, method: string, route: string, body?: unknown) {
  const res = await fetch(`${rt.base}/${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const link = (id: string | null) => ({ __bloxtype: 'Link', id, type: null });
const chain = [
  { id: 'Sensor', type: 'TempSensorMock', data: { setting: 20 } },
  { id: 'Setpoint', type: 'SetpointSensorPair', data: { enabled: true, sensorId: link('Sensor'), storedSetting: 19 } },
  { id: 'Mock', type: 'ActuatorAnalogMock', data: { enabled: true } },
  { id: 'PID', type: 'Pid', data: { enabled: true, inputId: link('Setpoint'), outputId: link('Mock'), kp: 10 } },
];

t.test('rename: links follow, the new id is persisted, conflicts are 409', async (t) => {
  const dir = dataDir();
  let rt = await startApp({}, { dataDir: dir });
  t.teardown(() => rt.close());
  const made = await call(rt, 'POST', 'blocks/batch/create', chain);
  t.equal(made.status, 201);
  t.same(
    made.body.map((b: any) => b.id),
    chain.map((b) => b.id),
  );
  const res = await call(rt, 'POST', 'blocks/rename', { existing: 'Setpoint', desired: 'Fridge Setpoint' });
  t.equal(res.status, 200);
  t.equal(res.body.id, 'Fridge Setpoint');
  t.equal((await call(rt, 'POST', 'blocks/read', { id: 'Setpoint' })).status, 404);
  t.equal(
    (await call(rt, 'POST', 'blocks/read', { id: 'PID' })).body.data.inputId.id,
    'Fridge Setpoint',
    'the PID link followed',
  );
  t.equal((await call(rt, 'POST', 'blocks/rename', { existing: 'Sensor', desired: 'Mock' })).status, 409, 'id in use');
  t.equal(
    (await call(rt, 'POST', 'blocks/rename', { existing: 'SysInfo', desired: 'Mine' })).status,
    409,
    'system block',
  );
  t.equal((await call(rt, 'POST', 'blocks/rename', { existing: 'Nobody', desired: 'X' })).status, 404);
  t.equal((await call(rt, 'POST', 'blocks/rename', { existing: 'Sensor', desired: ' padded' })).status, 422);
  await rt.close();
  rt = await startApp({}, { dataDir: dir });
  const pid = await call(rt, 'POST', 'blocks/read', { id: 'PID' });
  t.equal(pid.body.data.inputId.id, 'Fridge Setpoint', 'the link survives a restart');
  t.equal((await call(rt, 'POST', 'blocks/read', { id: 'Fridge Setpoint' })).body.data.sensorId.id, 'Sensor');
});

t.test(
  'batch write: one bad block changes nothing (memory and database), and the error names index and field',
  async (t) => {
    const dir = dataDir();
    let rt = await startApp({}, { dataDir: dir });
    t.teardown(() => rt.close());
    await call(rt, 'POST', 'blocks/batch/create', chain);
    const before = (await call(rt, 'POST', 'blocks/all/read/stored')).body;
    const res = await call(rt, 'POST', 'blocks/batch/patch', [
      { id: 'Sensor', type: 'TempSensorMock', data: { setting: 30 } },
      { id: 'Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 25 } },
      { id: 'PID', type: 'Pid', data: { kp: 'hot' } },
    ]);
    t.equal(res.status, 422);
    t.match(res.body.message, /batch item 2 \(id 'PID'\)/);
    t.match(res.body.validation, [{ path: '2.data.kp' }]);
    t.same((await call(rt, 'POST', 'blocks/all/read/stored')).body, before, 'nothing changed in memory');
    const created = await call(rt, 'POST', 'blocks/batch/create', [
      { id: 'New 1', type: 'TempSensorMock', data: {} },
      { id: 'Sensor', type: 'TempSensorMock', data: {} },
    ]);
    t.equal(created.status, 409, 'a duplicate id in a batch create');
    t.equal((await call(rt, 'POST', 'blocks/read', { id: 'New 1' })).status, 404, 'the first item was undone');
    await rt.close();
    rt = await startApp({}, { dataDir: dir });
    t.same((await call(rt, 'POST', 'blocks/all/read/stored')).body, before, 'nothing changed in the database');
    const ok = await call(rt, 'POST', 'blocks/batch/write', [
      { id: 'Sensor', type: 'TempSensorMock', data: { setting: 22 } },
      { id: 'Mock', type: 'ActuatorAnalogMock', data: { enabled: false } },
    ]);
    t.equal(ok.status, 200);
    t.same(
      ok.body.map((b: any) => b.id),
      ['Sensor', 'Mock'],
    );
    t.equal(ok.body[0].data.setting.value, 22);
    t.equal((await call(rt, 'POST', 'blocks/batch/write', { id: 'x' })).status, 400, 'a batch is a list');
  },
);

t.test('delete with a list, validate, nid 0', async (t) => {
  const rt = await startApp();
  t.teardown(() => rt.close());
  await call(rt, 'POST', 'blocks/batch/create', chain);
  const nid0 = await call(rt, 'POST', 'blocks/create', {
    id: 'other_obj',
    nid: 0,
    type: 'TempSensorOneWire',
    data: { value: 12345, offset: 20, address: 'FF' },
  });
  t.equal(nid0.status, 201);
  t.ok(nid0.body.nid >= 100);
  const del = await call(rt, 'POST', 'blocks/delete', [{ id: 'PID' }, { id: 'Mock' }]);
  t.equal(del.status, 200);
  t.same(
    del.body.map((b: any) => b.id),
    ['PID', 'Mock'],
  );
  const bad = await call(rt, 'POST', 'blocks/delete', [{ id: 'Sensor' }, { id: 'SysInfo' }]);
  t.equal(bad.status, 409);
  t.equal(
    (await call(rt, 'POST', 'blocks/read', { id: 'Sensor' })).status,
    200,
    'a failed list delete deletes nothing',
  );
  const valid = await call(rt, 'POST', 'blocks/validate', {
    type: 'TempSensorOneWire',
    data: { value: 12345, offset: 20, address: 'FE' },
  });
  t.equal(valid.status, 200);
  t.equal(valid.body.data.offset.value, 20);
  t.equal((await call(rt, 'POST', 'blocks/read', { id: 'FE' })).status, 404);
  const invalid = await call(rt, 'POST', 'blocks/validate', {
    type: 'TempSensorOneWire',
    data: { value: 12345, offset: 20, address: 'FE', invalid: true },
  });
  t.equal(invalid.status, 422);
  t.match(invalid.body.validation, [{ path: 'data.invalid' }]);
  const badLink = await call(rt, 'POST', 'blocks/validate', {
    type: 'SetpointSensorPair',
    data: { 'sensorId<>': 'Santa', setting: 0, value: 0, enabled: true, filter: 'FILTER_15s', filterThreshold: 2 },
  });
  t.equal(badLink.status, 422);
  t.match(badLink.body.message, /Santa/);
});

t.test('status, settings/enabled (persisted, outputs safe), restart and not-applicable routes', async (t) => {
  const dir = dataDir();
  let rt = await startApp({ hardware: 'sim' }, { dataDir: dir });
  t.teardown(() => rt.close());
  for (const method of ['GET', 'POST']) {
    const s = await call(rt, method, 'system/status');
    t.equal(s.status, 200);
    t.match(s.body, {
      enabled: true,
      service: { name: 'edge-one', firmware: { firmware_version: String }, device: { device_id: String } },
      connection_kind: 'SIM',
      connection_status: 'SYNCHRONIZED',
      firmware_error: null,
      identity_error: null,
      serviceId: 'edge-one',
    });
    t.type(s.body.address, 'string');
    t.ok(s.body.controller, 'a controller description');
  }
  t.same((await call(rt, 'GET', 'settings/enabled')).body, { enabled: true });
  t.equal((await call(rt, 'PUT', 'settings/enabled', { enabled: 'no' })).status, 422);
  t.same((await call(rt, 'PUT', 'settings/enabled', { enabled: false })).body, { enabled: false });
  t.equal(rt.app.runtime.paused, true, 'control paused');
  const ticks = rt.app.runtime.tickCount;
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rt.app.runtime.tickCount, ticks, 'no block runs while disabled');
  t.equal((await call(rt, 'GET', 'system/status')).body.enabled, false);
  await rt.close();
  rt = await startApp({ hardware: 'sim' }, { dataDir: dir });
  t.same((await call(rt, 'GET', 'settings/enabled')).body, { enabled: false }, 'persisted');
  t.equal(rt.app.runtime.paused, true);
  t.same((await call(rt, 'PUT', 'settings/enabled', { enabled: true })).body, { enabled: true });
  const resumed = rt.app.runtime.tickCount;
  await new Promise((r) => setTimeout(r, 300));
  t.ok(rt.app.runtime.tickCount > resumed, 'control runs again');

  let restarted = 0;
  rt.app.onRestart = () => restarted++;
  t.equal((await call(rt, 'POST', 'system/reboot/service', {})).status, 200);
  await new Promise((r) => setTimeout(r, 50));
  t.equal(restarted, 1, 'the restart hook ran after the answer');
  for (const route of ['system/flash', 'system/usb', 'system/mdns', 'system/reboot/controller']) {
    const r = await call(rt, 'POST', route, {});
    t.equal(r.status, 409, route);
    t.match(r.body.message, /not applicable/);
  }
});

t.test("the units document of brewblox-global applies; the service's own wins", async (t) => {
  const rt = await startApp();
  t.teardown(() => rt.close());
  const ds = (route: string, body: unknown) =>
    fetch(new URL(`/history/datastore/${route}`, rt.base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await call(rt, 'POST', 'blocks/create', { id: 'S', type: 'TempSensorMock', data: { setting: 20 } });
  t.equal((await ds('set', { value: { namespace: 'brewblox-global', id: 'units', temperature: 'degF' } })).status, 200);
  t.match((await call(rt, 'POST', 'blocks/read', { id: 'S' })).body.data.setting, { unit: 'degF', value: 68 });
  await ds('set', { value: { namespace: 'edge-one', id: 'units', temperature: 'degC' } });
  t.match((await call(rt, 'POST', 'blocks/read', { id: 'S' })).body.data.setting, { unit: 'degC', value: 20 });
  await ds('delete', { namespace: 'edge-one', id: 'units' });
  t.match(
    (await call(rt, 'POST', 'blocks/read', { id: 'S' })).body.data.setting,
    { unit: 'degF' },
    'back to the global one',
  );
});

t.test('Swagger lists the legacy names of each type as deprecated', async (t) => {
  const rt = await startApp();
  t.teardown(() => rt.close());
  const doc = await (await fetch(`${rt.base}/api/doc/json`)).json();
  const text = JSON.stringify(doc);
  const body = objectAt(
    doc,
    'paths',
    '/edge-one/blocks/create',
    'post',
    'requestBody',
    'content',
    'application/json',
    'schema',
  ) as { anyOf?: unknown[]; oneOf?: unknown[] };
  // Each type is a shared component the body refers to.
  const resolve = (v: any) =>
    typeof v.$ref === 'string'
      ? v.$ref
          .split('/')
          .slice(1)
          .reduce((o: any, k: string) => o?.[k], doc)
      : v;
  const variants: any[] = (body.anyOf ?? body.oneOf ?? []).map(resolve);
  const da = variants.find((v) => v?.title === 'DigitalActuator');
  t.ok(da, 'the DigitalActuator body schema');
  t.match(da.properties.data.properties.constrainedBy, { deprecated: true, description: /constraints object/ });
  t.notOk(da.properties.data.properties.constraints.deprecated, 'current fields are not deprecated');
  t.match(text, /rename/, 'rename is documented');
  for (const path of [
    '/edge-one/blocks/rename',
    '/edge-one/blocks/batch/create',
    '/edge-one/blocks/validate',
    '/edge-one/settings/enabled',
    '/edge-one/system/reboot/service',
  ])
    t.ok(at(doc, 'paths', path), path);
});
