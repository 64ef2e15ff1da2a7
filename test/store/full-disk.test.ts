// A full disk (issue 23, item 7), for real: the data dir on a 2 MiB tmpfs filled to the last
// byte. Changes (blocks/create, datastore/set) answer 507 "disk full" instead of a bare 500,
// system/status shows `storage: {full: true, since}`, reads and the control loop go on, and once
// space is back everything is accepted again. Needs root (mount), which the test machine has.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import t from 'tap';
import { fill, smallDisk } from '../helpers/small-disk.js';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';

const disk = smallDisk('edgeblocks-fulldisk-');
const mountPoint = disk.mountPoint;
t.teardown(() => {
  disk.unmount();
});

async function until(cond: () => Promise<boolean>, what: string, ms = limit(10_000)): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.test(
  'a full disk: 507 for changes, shown in status, reads and control go on, and back when space returns',
  async (t) => {
    const dataDir = path.join(mountPoint, 'data');
    mkdirSync(dataDir);
    const lines: Array<{ msg: string }> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const rt = await startApp({ history: 'off' }, { dataDir, log: pino({ level: 'info' }, sink) });
    t.teardown(() => rt.close());
    const ds = (op: string, body: unknown) => rt.post(`../history/datastore/${op}`, body);
    const status = async () => (await rt.post('system/status')).body;

    // A control chain whose PID integral grows every second it runs.
    const blocks = [
      { id: 'Beer', type: 'TempSensorMock', data: { setting: 20 } },
      {
        id: 'Beer Setpoint',
        type: 'SetpointSensorPair',
        data: { enabled: true, storedSetting: 30, 'sensorId<>': 'Beer' },
      },
      { id: 'Heater', type: 'ActuatorAnalogMock', data: {} },
      {
        id: 'Heat PID',
        type: 'Pid',
        data: { enabled: true, 'inputId<>': 'Beer Setpoint', 'outputId<>': 'Heater', kp: 1, ti: 600 },
      },
      // At its END it stores its progress and the setpoint it set from inside the control loop, which meets the full disk.
      {
        id: 'Steps',
        type: 'Sequence',
        data: {
          enabled: true,
          instructions: ['WAIT_DURATION duration=3s', 'SET_SETPOINT target=Beer Setpoint, setting=40C'],
        },
      },
    ];
    for (const b of blocks) t.equal((await rt.post('blocks/create', b)).status, 201, `${b.id} created`);
    t.equal((await ds('set', { value: { namespace: 'notes', id: 'before', text: 'kept' } })).status, 200);
    t.same((await status()).storage?.full, false, 'not full yet');

    const filler = path.join(mountPoint, 'filler');
    fill(filler);
    const create = await rt.post('blocks/create', { id: 'On full disk', type: 'TempSensorMock', data: {} });
    t.equal(create.status, 507, 'blocks/create on a full disk is 507');
    t.match(create.body?.message, /^disk full: /, 'saying the disk is full');
    const set = await ds('set', { value: { namespace: 'notes', id: 'during', text: 'x'.repeat(20_000) } });
    t.equal(set.status, 507, 'datastore/set on a full disk is 507');
    t.match(set.body?.message, /^disk full: /);

    const full = await status();
    t.equal(full.storage?.full, true, 'system/status shows the disk full');
    t.ok(!Number.isNaN(Date.parse(full.storage?.since)), `since ${full.storage?.since}`);

    // Reads and control go on.
    t.equal((await rt.post('blocks/read', { id: 'On full disk' })).status, 404, 'the refused block does not exist');
    t.same((await ds('get', { namespace: 'notes', id: 'before' })).body?.value?.text, 'kept', 'datastore reads answer');
    const integral = async () => (await rt.post('blocks/read', { id: 'Heat PID' })).body.data.integral as number;
    const first = await integral();
    await until(async () => (await integral()) > first, 'the PID integral to grow on the full disk');
    t.pass('the control loop runs on the full disk');
    const setting = async () =>
      (await rt.post('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting?.value as number;
    await until(async () => (await setting()) === 40, 'the sequence to set the setpoint on the full disk');
    const steps = (await rt.post('blocks/read', { id: 'Steps' })).body.data;
    t.equal(steps.activeInstruction, 2, 'the sequence ran to its end');
    t.equal((await status()).storage?.full, true, 'still full');
    t.equal(
      JSON.parse(rt.app.runtime.persistence.loadBlocks().find((r) => r.id === 'Beer Setpoint')!.data).storedSetting
        .value,
      30,
      'the new setting is not stored yet',
    );
    t.equal((await rt.post('system/ping')).status, 200);

    // Space returns: everything works again.
    rmSync(filler);
    await until(async () => (await status()).storage?.full === false, 'storage to be writable again');
    t.equal((await status()).storage?.since, null);
    t.equal(
      (await rt.post('blocks/create', { id: 'After space returns', type: 'TempSensorMock', data: {} })).status,
      201,
      'create works again',
    );
    t.equal(
      (await ds('set', { value: { namespace: 'notes', id: 'after', text: 'stored' } })).status,
      200,
      'datastore/set works again',
    );
    t.same((await ds('get', { namespace: 'notes', id: 'after' })).body?.value?.text, 'stored');
    const stored = () =>
      JSON.parse(rt.app.runtime.persistence.loadBlocks().find((r) => r.id === 'Beer Setpoint')!.data).storedSetting
        .value;
    await until(async () => stored() === 40, 'the setting the sequence made on the full disk to be stored');
    t.pass('what control changed on the full disk is stored once there is room');
    t.same(
      lines.filter((l) => /update failed|request failed/.test(l.msg)).map((l) => l.msg),
      [],
      'no update or request failed for the full disk',
    );
    t.equal(lines.filter((l) => /^disk full/.test(l.msg)).length, 1, 'one line when the disk became full');
    t.equal(lines.filter((l) => /^disk space back/.test(l.msg)).length, 1, 'one line when space was back');
  },
);
