// Real Brewblox data through the REST API (test/fixtures/brewblox/): the UI's quick-start chains
// and "new block" bodies, the Spark service's backup fixture and its integration-test bodies.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { blockTypes } from '../../src/blocks/index.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { holdsSent } from '../helpers/holds-sent.js';
import { ROOT } from '../helpers/root.js';

const fixture = (name: string) => JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/brewblox', name), 'utf8'));

async function app(t: Test): Promise<RunningApp> {
  const rt = await startApp();
  t.teardown(() => rt.close());
  return rt;
}

for (const name of ['fridge', 'ferment', 'glycol', 'herms', 'rims', 'kettle']) {
  t.test(`quick start '${name}' as the UI sends it`, async (t) => {
    const qs = fixture(`quickstart-${name}.json`);
    const rt = await app(t);
    t.equal((await rt.post('blocks/create', { id: 'Pins', type: 'MockPins', data: {} })).status, 201);
    for (const sensor of qs.sensors)
      t.equal(
        (await rt.post('blocks/create', { id: sensor, type: 'TempSensorMock', data: { setting: 20 } })).status,
        201,
      );
    // The UI creates the blocks one by one, in order.
    for (const block of qs.blocks) {
      const res = await rt.post('blocks/create', block);
      t.equal(res.status, 201, `${block.id}: ${res.status === 201 ? 'created' : JSON.stringify(res.body)}`);
    }
    const all = (await rt.post('blocks/all/read')).body as any[];
    for (const block of qs.blocks)
      t.ok(
        all.some((b) => b.id === block.id && b.type === block.type),
        `${block.id} is listed`,
      );
    // Every link the UI set resolves to the block it named.
    for (const block of qs.blocks) {
      const read = all.find((b) => b.id === block.id);
      for (const [key, value] of Object.entries(block.data)) {
        const name = key.replace(/<.*>$/, '');
        const id = key.endsWith('>') ? value : (value as any)?.__bloxtype === 'Link' ? (value as any).id : undefined;
        if (id === undefined || read.data[name]?.__bloxtype !== 'Link' || read.data[name].readonly) continue;
        t.equal(read.data[name].id, id, `${block.id}.${name} -> ${String(id)}`);
      }
    }
  });
}

t.test('the fridge quick start translates its legacy shapes into the stored ones', async (t) => {
  const qs = fixture('quickstart-fridge.json');
  const rt = await app(t);
  await rt.post('blocks/create', { id: 'Pins', type: 'MockPins', data: {} });
  await rt.post('blocks/create', { id: 'Fridge Sensor', type: 'TempSensorMock', data: {} });
  const res = await rt.post('blocks/batch/create', qs.blocks);
  t.equal(res.status, 201, JSON.stringify(res.body).slice(0, 300));
  const read = async (id: string) => (await rt.post('blocks/read/stored', { id })).body.data;
  const cool = await read('Fridge Cool Actuator');
  t.match(cool.constraints, {
    minOff: { enabled: true, duration: { value: 300 } },
    minOn: { enabled: true, duration: { value: 120 } },
    mutexed: { enabled: true, mutexId: { id: 'Fridge Mutex' }, extraHoldTime: { value: 2700 } },
  });
  t.match((await read('Fridge Heat Actuator')).constraints.mutexed.extraHoldTime, { value: 1200 });
  t.equal((await read('Fridge Setpoint')).enabled, true, 'settingEnabled');
  const profile = await read('Fridge Profile');
  t.equal(profile.start, '2024-11-24T02:00:00Z');
  t.same(
    profile.points.map((p: any) => p.time.value),
    [0, 604800, 864000],
  );
  t.match(await read('Fridge Cool PID'), {
    kp: { value: -20 },
    ti: { value: 7200 },
    td: { value: 600 },
    enabled: true,
  });
});

t.test('"new block" bodies of the UI: created, and read back holding what was sent', async (t) => {
  const gen = fixture('generate-bodies.json');
  const rt = await app(t);
  let n = 0;
  for (const [label, data] of Object.entries<Record<string, unknown>>(gen.bodies)) {
    const type = label.split(' ')[0]!;
    const def = blockTypes.find((d) => d.type === type)!;
    const id = `New ${n++}`;
    const res = await rt.post('blocks/create', { id, type, serviceId: 'edge-one', data });
    t.equal(res.status, 201, `${label}: ${res.status === 201 ? 'created' : JSON.stringify(res.body)}`);
    holdsSent(t, def.fields, def.legacy, data, (await rt.post('blocks/read', { id })).body.data, label);
  }
});

t.test('"new block" bodies edited as a user does in the block forms', async (t) => {
  const gen = fixture('generate-bodies.json');
  const rt = await app(t);
  for (const block of gen.setup) {
    const res = await rt.post('blocks/create', block);
    t.equal(res.status, 201, `setup ${block.id}: ${JSON.stringify(res.body).slice(0, 200)}`);
  }
  t.ok(Object.keys(gen.edits).length >= 23);
  let n = 0;
  for (const [label, edit] of Object.entries<Record<string, unknown>>(gen.edits)) {
    const type = label.split(' ')[0]!;
    const def = blockTypes.find((d) => d.type === type)!;
    const id = `Edited ${n++}`;
    const data = { ...gen.bodies[label], ...edit };
    const res = await rt.post('blocks/create', { id, type, data });
    t.equal(res.status, 201, `${label}: ${res.status === 201 ? 'created' : JSON.stringify(res.body)}`);
    // Everything not a legacy name must read back as sent; legacy names are checked below.
    const current = Object.fromEntries(
      Object.entries(data).filter(
        ([k]) => !def.legacy || !Object.hasOwn(def.legacy, k) || Object.hasOwn(def.fields, k),
      ),
    );
    const read = (await rt.post('blocks/read', { id })).body.data;
    holdsSent(t, def.fields, def.legacy, current, read, label);
    // read/stored is in the controller's units (degC, s): the same values, converted.
    holdsSent(
      t,
      def.fields,
      def.legacy,
      current,
      (await rt.post('blocks/read/stored', { id })).body.data,
      `${label} (stored)`,
      true,
    );
  }
  // The legacy shapes among the edits, translated.
  const read = async (label: string) =>
    (await rt.post('blocks/read', { id: `Edited ${Object.keys(gen.edits).indexOf(label)}` })).body.data;
  t.match((await read('ActuatorAnalogMock (constrainedBy era)')).constraints, {
    min: { enabled: true, value: 10 },
    max: { enabled: true, value: 80 },
  });
  t.match((await read('FastPwm (constrainedBy era)')).constraints, { min: { enabled: true, value: 15 } });
  const valve = await read('MotorValve (startChannel era)');
  t.equal(valve.channel, 1, 'startChannel became channel');
  t.match(valve.constraints, { minOff: { enabled: true, duration: { value: 30, unit: 's' } } });
  t.match((await read('DigitalActuator (constrainedBy era)')).constraints, {
    minOn: { enabled: true, duration: { value: 120 } },
    mutexed: { enabled: true, mutexId: { id: 'Lock' }, extraHoldTime: { value: 30 } },
  });
  // A mash temperature the user typed in Fahrenheit reads in the service's unit (degC).
  const mash = (await read('Variables')).variables.mash.temp;
  t.equal(mash.unit, 'degC');
  t.ok(Math.abs(mash.value - 200 / 3) < 1e-9, `152 degF reads ${mash.value} degC`);
});

t.test(
  'the Spark service backup fixture loads with the same failures; Spark system blocks and retired fields are warnings',
  async (t) => {
    const dc = fixture('devcon-spark.json');
    const rt = await app(t);
    const backup = { blocks: [...dc.blocks].reverse(), store: [] };
    let res = await rt.post('blocks/backup/load', backup);
    t.equal(res.status, 200);
    t.same(res.body.failures, [], JSON.stringify(res.body.messages));
    t.equal(res.body.warnings.length, 2, JSON.stringify(res.body.warnings));
    t.match(res.body.warnings[0], /DisplaySettings.*skipped: a Spark system block/);
    t.match(res.body.warnings[1], /mutex-1.*field 'differentActuatorWait' dropped \(retired/);
    const ids = ((await rt.post('blocks/all/read')).body as any[]).map((b) => b.id);
    for (const b of dc.blocks) if (b.type !== 'DisplaySettings') t.ok(ids.includes(b.id), `${b.id} loaded`);
    const stored = async (id: string) => (await rt.post('blocks/read/stored', { id })).body.data;
    t.match((await stored('actuator-pwm-1')).constraints, {
      min: { enabled: true, value: 5 },
      max: { enabled: true, value: 50 },
      balanced: { enabled: true, balancerId: { id: 'balancer-1' } },
    });
    t.match((await stored('actuator-digital-1')).constraints.mutexed, {
      enabled: true,
      mutexId: { id: 'mutex-1' },
      extraHoldTime: { value: 5 },
    });
    t.equal((await stored('setpoint-sensor-pair-2')).sensorId.id, null, '"sensorId<>": 0 is no link');
    t.same(
      (await stored('profile-1')).points.map((p: any) => p.time.value),
      [0, 10, 20],
    );
    t.equal((await stored('setpoint-sensor-pair-1')).filter, 1);

    res = await rt.post('blocks/backup/load', { blocks: [...backup.blocks, ...dc.extra], store: [] });
    const messages: string[] = res.body.messages;
    t.equal(messages.length, 6, JSON.stringify(messages));
    t.ok(
      res.body.warnings.some((w: string) =>
        /id 'sensor-onewire-old'.*field 'address' dropped \(deadbeef00000000 is already used by block 'sensor-onewire-1'\)/.test(
          w,
        ),
      ),
      'the older sensor on the address of another loads unbound, as blocks/create refuses a second block on one address',
    );
    t.equal(
      res.body.failures.length,
      1,
      'derpface failed; the rest are warnings (fantast loads, its link pointing nowhere)',
    );
    for (const word of ['DisplaySettings', 'fantast', 'Groups', 'derpface'])
      t.ok(
        messages.some((m) => m.includes(word)),
        `a message names ${word}`,
      );
    const after = ((await rt.post('blocks/all/read')).body as any[]).map((b) => b.id);
    t.notOk(after.includes('derpface'));
    t.ok(after.includes('sensor-onewire-old'));
  },
);

t.test('the Spark service integration-test bodies', async (t) => {
  const { integration } = fixture('devcon-spark.json');
  const rt = await app(t);
  const args = integration.block_args;
  t.equal((await rt.post('blocks/create', args)).status, 201);
  t.equal((await rt.post('blocks/create', args)).status, 409, 'name taken');
  const other = await rt.post('blocks/create', {
    ...args,
    id: 'other_obj',
    nid: 0,
    data: { ...args.data, address: 'FE' },
  });
  t.equal(other.status, 201, 'nid 0 assigns one');
  t.equal((await rt.post('blocks/read', { id: 'testobj' })).body.data.address, 'ff00000000000000');
  // 50 copies of the same body: this controller refuses a second block on one hardware address,
  // so the batch fails at index 1 and creates nothing; with distinct addresses it succeeds.
  const ids = Array.from({ length: 50 }, (_, i) => `id${i}`);
  const same = await rt.post(
    'blocks/batch/create',
    ids.map((id) => ({ id, type: args.type, data: { ...args.data, address: 'F0' } })),
  );
  t.equal(same.status, 422);
  t.match(same.body.validation, [{ path: '1.data.address' }]);
  t.equal((await rt.post('blocks/read', { id: 'id0' })).status, 404, 'nothing created');
  const distinct = await rt.post(
    'blocks/batch/create',
    ids.map((id, i) => ({ id, type: args.type, data: { ...args.data, address: (0x100 + i).toString(16) } })),
  );
  t.equal(distinct.status, 201);
  t.equal(distinct.body.length, 50);
  const del = await rt.post(
    'blocks/batch/delete',
    ids.map((id) => ({ id })),
  );
  t.equal(del.body.length, 50);
  const pwm = await rt.post('blocks/create', integration.pwm_block);
  t.equal(pwm.status, 201);
  t.match(pwm.body.data.constraints.min, { value: 10, enabled: false });
  const patched = await rt.post('blocks/patch', {
    id: 'pwm',
    type: 'ActuatorPwm',
    data: { constraints: { max: { value: 100 } } },
  });
  t.match(patched.body.data.constraints, { min: { value: 10 }, max: { value: 100 } });
  t.equal((await rt.post('blocks/rename', { existing: 'testobj', desired: 'newname' })).status, 200);
  t.equal((await rt.post('blocks/read', { id: 'newname' })).status, 200);
});

t.test(
  'the Spark service integration-test bodies: write, patch, nid, logged, stored, sequence, validate, settings',
  async (t) => {
    const { integration } = fixture('devcon-spark.json');
    const rt = await app(t);
    const args = integration.block_args;
    const created = await rt.post('blocks/create', args);
    t.equal(created.status, 201);
    // write, patch and their batches with the create body (test_write, test_patch, test_batch_*)
    t.equal((await rt.post('blocks/write', args)).status, 200);
    t.equal((await rt.post('blocks/batch/write', [args, args, args])).status, 200);
    t.equal((await rt.post('blocks/patch', args)).status, 200);
    t.equal((await rt.post('blocks/batch/patch', [args, args, args])).status, 200);
    t.match((await rt.post('blocks/read', { id: 'testobj' })).body.data, {
      offset: { value: 20 },
      address: 'ff00000000000000',
    });
    // read/logged leaves out what is not logged (test_read_logged)
    const logged = (await rt.post('blocks/read/logged', { id: 'testobj' })).body;
    t.equal(logged.id, 'testobj');
    t.notOk('address' in logged.data, 'address is not a logged field');
    // by nid (test_nid_crud)
    const nid = created.body.nid;
    t.equal((await rt.post('blocks/read', { nid })).body.id, 'testobj');
    t.equal((await rt.post('blocks/write', { ...created.body, data: { ...created.body.data, value: 5 } })).status, 200);
    t.equal((await rt.post('blocks/delete', { nid })).status, 200);
    const gone = await rt.post('blocks/read', { nid });
    t.ok(gone.status >= 400 && gone.status < 500, `read of a deleted nid is a 4xx (${gone.status})`);
    // read/stored of an unknown id (test_stored_blocks)
    const flappy = await rt.post('blocks/read/stored', { id: 'flappy' });
    t.ok(flappy.status >= 400 && flappy.status < 500, `unknown id: ${flappy.status}`);

    // test_patch: constraints patched member by member, and removed with null
    t.equal((await rt.post('blocks/create', integration.pwm_block)).status, 201);
    const [addMax, enableMax, dropMax] = integration.pwm_patches;
    t.match((await rt.post('blocks/patch', addMax)).body.data.constraints, {
      min: { enabled: false, value: 10 },
      max: { enabled: false, value: 100 },
    });
    const enabled = (await rt.post('blocks/patch', enableMax)).body.data;
    t.equal(enabled.enabled, true);
    t.match(enabled.constraints, { min: { enabled: false, value: 10 }, max: { enabled: true, value: 100 } });
    const dropped = (await rt.post('blocks/patch', dropMax)).body.data;
    t.match(dropped.constraints, { min: { enabled: false, value: 10 } });
    t.notOk(dropped.constraints.max, 'max: null removes the max constraint');

    // test_read_all_logged
    const la = integration.read_all_logged;
    t.equal((await rt.post('blocks/create', { ...la, id: 'pwm2' })).status, 201);
    const all = ((await rt.post('blocks/all/read')).body as any[]).find((b) => b.id === 'pwm2');
    t.ok('storedSetting' in all.data && 'period' in all.data);
    const allLogged = ((await rt.post('blocks/all/read/logged')).body as any[]).find((b) => b.id === 'pwm2');
    t.ok('storedSetting' in allLogged.data, 'storedSetting is logged');
    t.notOk('period' in allLogged.data, 'period is not');

    // test_sequence: the same instructions, comment with spaces included, parse and run
    const seq = integration.sequence;
    t.equal((await rt.post('blocks/create', seq.setpoint_block)).status, 201);
    const sequence = await rt.post('blocks/create', seq.sequence_block);
    t.equal(sequence.status, 201);
    t.same(
      sequence.body.data.instructions,
      seq.spark_reads_back,
      'instructions read back as the Spark service reads them back',
    );
    // A SetpointSensorPair created with empty data is disabled, so SET_SETPOINT waits on it (as on a Spark).
    t.equal(sequence.body.data.error, 'DISABLED_TARGET');
    t.equal(
      (await rt.post('blocks/patch', { id: 'setpoint', type: 'SetpointSensorPair', data: { enabled: true } })).status,
      200,
    );
    let setting: any;
    for (let i = 0; i < 50 && setting?.value !== 40; i++) {
      await new Promise((r) => setTimeout(r, 100));
      setting = (await rt.post('blocks/read', { id: 'setpoint' })).body.data.storedSetting;
    }
    t.match(setting, { value: 40, unit: 'degC' }, 'SET_SETPOINT ran once the target was enabled');

    // test_validate
    const validate = (body: unknown) => rt.post('blocks/validate', body);
    t.equal((await validate({ type: args.type, data: args.data })).status, 200);
    const badField = await validate({ type: args.type, data: { ...args.data, ...integration.validate.invalid_field } });
    t.ok(badField.status >= 400 && badField.status < 500, `unknown field: ${badField.status}`);
    t.match(JSON.stringify(badField.body), /invalid/);
    const badLink = await validate(integration.validate.invalid_link);
    t.ok(badLink.status >= 400 && badLink.status < 500, `unknown link target: ${badLink.status}`);
    t.match(JSON.stringify(badLink.body), /Santa/);

    // test_settings_api
    const put = await fetch(`${rt.base}/settings/enabled`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
    t.same(await put.json(), { enabled: false });
    t.same(await (await fetch(`${rt.base}/settings/enabled`)).json(), { enabled: false });
    await fetch(`${rt.base}/settings/enabled`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });

    // test_backup_save: one more block, one more in the backup
    const before = (await rt.post('blocks/backup/save')).body.blocks.length;
    t.equal(
      (await rt.post('blocks/create', { ...args, id: 'late', data: { ...args.data, address: 'FE' } })).status,
      201,
    );
    t.equal((await rt.post('blocks/backup/save')).body.blocks.length, before + 1);

    // test_invalid_input: no type, and a type nobody knows, are 4xx naming the problem
    const { type: _type, ...untyped } = args;
    const noType = await rt.post('blocks/create', { ...untyped, id: 'untyped' });
    t.ok(noType.status >= 400 && noType.status < 500, `no type: ${noType.status}`);
    t.match(JSON.stringify(noType.body), /type/);
    const dummy = await rt.post('blocks/create', { ...args, id: 'dummy-typed', type: 'dummy' });
    t.ok(dummy.status >= 400 && dummy.status < 500, `unknown type: ${dummy.status}`);
    t.match(JSON.stringify(dummy.body), /dummy/);

    // test_discover: nothing new on an emulator without hardware; test_delete_all: only user blocks go
    t.same((await rt.post('blocks/discover')).body, []);
    const everything = (await rt.post('blocks/all/read')).body as any[];
    const deleted = (await rt.post('blocks/all/delete')).body as any[];
    t.ok(deleted.length > 0 && deleted.length < everything.length, `${deleted.length} of ${everything.length} deleted`);
    const left = (await rt.post('blocks/all/read')).body as any[];
    t.equal(left.length, everything.length - deleted.length);
    t.ok(
      left.some((b) => b.id === 'SysInfo'),
      'system blocks stay',
    );
    t.notOk(left.some((b) => b.id === 'late'));
  },
);

t.test('a Spark 4 backup: its OneWireGpioModule system blocks are skipped with one message each', async (t) => {
  const rt = await app(t);
  // Spark 4 firmware lists one OneWireGpioModule per expansion board (brewblox-proto SystemBlockType).
  const modules = [19, 20].map((nid, i) => ({
    id: `GPIO${i + 1}`,
    nid,
    type: 'OneWireGpioModule',
    data: { modulePosition: i + 1, channels: [] },
  }));
  const res = await rt.post('blocks/backup/load', {
    blocks: [...modules, { id: 'Sensor', nid: 100, type: 'TempSensorMock', data: {} }],
    store: [],
  });
  t.equal(res.status, 200);
  t.equal(res.body.messages.length, 2, JSON.stringify(res.body.messages));
  for (const m of res.body.messages) t.match(m, /GPIO\d.*skipped: a Spark system block/);
  t.equal((await rt.post('blocks/read', { id: 'Sensor' })).status, 200);
});
