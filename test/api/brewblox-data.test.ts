// Real Brewblox data through the REST API (test/fixtures/brewblox/): the UI's quick-start chains
// and "new block" bodies, the Spark service's backup fixture and its integration-test bodies.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { blockTypes } from '../../src/blocks/index.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { holdsSent } from '../helpers/holds-sent.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/brewblox/${name}`, import.meta.url), 'utf8'));

async function app(t: Tap.Test): Promise<RunningApp> {
  const rt = await startApp();
  t.teardown(() => rt.close());
  return rt;
}

for (const name of ['fridge', 'ferment', 'glycol', 'herms', 'rims', 'kettle']) {
  t.test(`quick start '${name}' as the UI sends it`, async (t) => {
    const qs = fixture(`quickstart-${name}.json`);
    const rt = await app(t);
    t.equal((await rt.post('blocks/create', { id: 'Pins', type: 'MockPins', data: {} })).status, 201);
    for (const sensor of qs.sensors) t.equal((await rt.post('blocks/create', { id: sensor, type: 'TempSensorMock', data: { setting: 20 } })).status, 201);
    // The UI creates the blocks one by one, in order.
    for (const block of qs.blocks) {
      const res = await rt.post('blocks/create', block);
      t.equal(res.status, 201, `${block.id}: ${res.status === 201 ? 'created' : JSON.stringify(res.body)}`);
    }
    const all = (await rt.post('blocks/all/read')).body as any[];
    for (const block of qs.blocks) t.ok(all.some((b) => b.id === block.id && b.type === block.type), `${block.id} is listed`);
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
  t.match(cool.constraints, { minOff: { enabled: true, duration: { value: 300 } }, minOn: { enabled: true, duration: { value: 120 } }, mutexed: { enabled: true, mutexId: { id: 'Fridge Mutex' }, extraHoldTime: { value: 2700 } } });
  t.match((await read('Fridge Heat Actuator')).constraints.mutexed.extraHoldTime, { value: 1200 });
  t.equal((await read('Fridge Setpoint')).enabled, true, 'settingEnabled');
  const profile = await read('Fridge Profile');
  t.equal(profile.start, '2024-11-24T02:00:00Z');
  t.same(profile.points.map((p: any) => p.time.value), [0, 604800, 864000]);
  t.match(await read('Fridge Cool PID'), { kp: { value: -20 }, ti: { value: 7200 }, td: { value: 600 }, enabled: true });
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
  t.ok(Object.keys(gen.edits).length >= 15);
  let n = 0;
  for (const [label, edit] of Object.entries<Record<string, unknown>>(gen.edits)) {
    const type = label.split(' ')[0]!;
    const def = blockTypes.find((d) => d.type === type)!;
    const id = `Edited ${n++}`;
    const data = { ...gen.bodies[label], ...edit };
    const res = await rt.post('blocks/create', { id, type, data });
    t.equal(res.status, 201, `${label}: ${res.status === 201 ? 'created' : JSON.stringify(res.body)}`);
    // Everything not a legacy name must read back as sent; legacy names are checked below.
    const current = Object.fromEntries(Object.entries(data).filter(([k]) => !def.legacy || !Object.hasOwn(def.legacy, k) || Object.hasOwn(def.fields, k)));
    const read = (await rt.post('blocks/read', { id })).body.data;
    holdsSent(t, def.fields, def.legacy, current, read, label);
    const stored = (await rt.post('blocks/read/stored', { id })).body.data;
    for (const key of Object.keys(current)) if (def.fields[key]?.stored) t.ok(Object.hasOwn(stored, key), `${label}.${key} is stored`);
  }
  // The legacy shapes among the edits, translated.
  const read = async (label: string) => (await rt.post('blocks/read', { id: `Edited ${Object.keys(gen.edits).indexOf(label)}` })).body.data;
  t.match((await read('ActuatorAnalogMock (constrainedBy era)')).constraints, { min: { enabled: true, value: 10 }, max: { enabled: true, value: 80 } });
  t.match((await read('FastPwm (constrainedBy era)')).constraints, { min: { enabled: true, value: 15 } });
  const valve = await read('MotorValve (startChannel era)');
  t.equal(valve.channel, 1, 'startChannel became channel');
  t.match(valve.constraints, { minOff: { enabled: true, duration: { value: 30, unit: 's' } } });
  // A mash temperature the user typed in Fahrenheit reads in the service's unit (degC).
  const mash = (await read('Variables')).variables.mash.temp;
  t.equal(mash.unit, 'degC');
  t.ok(Math.abs(mash.value - 200 / 3) < 1e-9, `152 degF reads ${mash.value} degC`);
});

t.test('the Spark service backup fixture loads with the same messages (plus one per Spark system block)', async (t) => {
  const dc = fixture('devcon-spark.json');
  const rt = await app(t);
  const backup = { blocks: [...dc.blocks].reverse(), store: [] };
  let res = await rt.post('blocks/backup/load', backup);
  t.equal(res.status, 200);
  t.equal(res.body.messages.length, 1, JSON.stringify(res.body.messages));
  t.match(res.body.messages[0], /DisplaySettings.*skipped: a Spark system block/);
  const ids = ((await rt.post('blocks/all/read')).body as any[]).map((b) => b.id);
  for (const b of dc.blocks) if (b.type !== 'DisplaySettings') t.ok(ids.includes(b.id), `${b.id} loaded`);
  const stored = async (id: string) => (await rt.post('blocks/read/stored', { id })).body.data;
  t.match((await stored('actuator-pwm-1')).constraints, { min: { enabled: true, value: 5 }, max: { enabled: true, value: 50 }, balanced: { enabled: true, balancerId: { id: 'balancer-1' } } });
  t.match((await stored('actuator-digital-1')).constraints.mutexed, { enabled: true, mutexId: { id: 'mutex-1' }, extraHoldTime: { value: 5 } });
  t.equal((await stored('setpoint-sensor-pair-2')).sensorId.id, null, '"sensorId<>": 0 is no link');
  t.same((await stored('profile-1')).points.map((p: any) => p.time.value), [0, 10, 20]);
  t.equal((await stored('setpoint-sensor-pair-1')).filter, 1);

  res = await rt.post('blocks/backup/load', { blocks: [...backup.blocks, ...dc.extra], store: [] });
  const messages: string[] = res.body.messages;
  t.equal(messages.length, 4, JSON.stringify(messages));
  for (const word of ['DisplaySettings', 'fantast', 'Groups', 'derpface']) t.ok(messages.some((m) => m.includes(word)), `a message names ${word}`);
  const after = ((await rt.post('blocks/all/read')).body as any[]).map((b) => b.id);
  t.notOk(after.includes('derpface'));
  t.ok(after.includes('sensor-onewire-old'));
});

t.test('the Spark service integration-test bodies', async (t) => {
  const { integration } = fixture('devcon-spark.json');
  const rt = await app(t);
  const args = integration.block_args;
  t.equal((await rt.post('blocks/create', args)).status, 201);
  t.equal((await rt.post('blocks/create', args)).status, 409, 'name taken');
  const other = await rt.post('blocks/create', { ...args, id: 'other_obj', nid: 0, data: { ...args.data, address: 'FE' } });
  t.equal(other.status, 201, 'nid 0 assigns one');
  t.equal((await rt.post('blocks/read', { id: 'testobj' })).body.data.address, 'ff00000000000000');
  // 50 copies of the same body: this controller refuses a second block on one hardware address,
  // so the batch fails at index 1 and creates nothing; with distinct addresses it succeeds.
  const ids = Array.from({ length: 50 }, (_, i) => `id${i}`);
  const same = await rt.post('blocks/batch/create', ids.map((id) => ({ id, type: args.type, data: { ...args.data, address: 'F0' } })));
  t.equal(same.status, 422);
  t.match(same.body.validation, [{ path: '1.data.address' }]);
  t.equal((await rt.post('blocks/read', { id: 'id0' })).status, 404, 'nothing created');
  const distinct = await rt.post('blocks/batch/create', ids.map((id, i) => ({ id, type: args.type, data: { ...args.data, address: (0x100 + i).toString(16) } })));
  t.equal(distinct.status, 201);
  t.equal(distinct.body.length, 50);
  const del = await rt.post('blocks/batch/delete', ids.map((id) => ({ id })));
  t.equal(del.body.length, 50);
  const pwm = await rt.post('blocks/create', integration.pwm_block);
  t.equal(pwm.status, 201);
  t.match(pwm.body.data.constraints.min, { value: 10, enabled: false });
  const patched = await rt.post('blocks/patch', { id: 'pwm', type: 'ActuatorPwm', data: { constraints: { max: { value: 100 } } } });
  t.match(patched.body.data.constraints, { min: { value: 10 }, max: { value: 100 } });
  t.equal((await rt.post('blocks/rename', { existing: 'testobj', desired: 'newname' })).status, 200);
  t.equal((await rt.post('blocks/read', { id: 'newname' })).status, 200);
});
