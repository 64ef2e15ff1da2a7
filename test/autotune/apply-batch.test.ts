// An APPLY of a proposed tuning the way clients send it: in one request with other writes (a
// REST batch, blocks/batch/patch), in two MQTT controller messages handled back to back (real
// Mosquitto), and over a proposal an older version made, loaded from its backup. The proposal is tuned on the emulated fermenter (tuning-rig.ts) and loaded into the
// app as a backup; the app's beer probe is a mock sensor at the setting.
import t, { type Test as Tap } from 'tap';
import { startApp } from '../helpers/app.js';
import { controllerTopic, Recorder, SERVICE_ID, sleep, until, VARIANTS } from '../mqtt/fixtures.js';
import { fermenter, NO_SETUP, runTuning, start, tuning } from './tuning-rig.js';

const s = (value: number) => ({ __objtype: 'Quantity', unit: 's', value });

/** A backup of the fermenter with the Heat PID's result PROPOSED, its probe a TempSensorMock. */
async function proposedBackup() {
  const f = fermenter().build();
  await f.run(1800);
  start(f, { cycles: 3 });
  await runTuning(f, 48);
  if (tuning(f).state !== 'PROPOSED') throw new Error(`no proposal: ${tuning(f).message}`);
  const backup = JSON.parse(JSON.stringify(f.runtime.backupSave()));
  const probe = backup.blocks.find((b: { id: string }) => b.id === 'Beer Sensor');
  probe.type = 'TempSensorMock';
  probe.data = { setting: 20 };
  return { backup, result: tuning(f).result };
}

async function proposedApp(t: Tap) {
  const bus = await VARIANTS.find((v) => v.name === 'mosquitto')!.setup();
  t.teardown(() => bus.close());
  const rt = await startApp({ ...bus.overrides });
  t.teardown(() => rt.close());
  const { backup, result } = await proposedBackup();
  const load = await rt.post('blocks/backup/load', backup);
  t.equal(load.status, 200, JSON.stringify(load.body));
  const read = async (id: string) => (await rt.post('blocks/read', { id })).body.data;
  t.equal((await read('Heat PID')).tuning.state, 'PROPOSED', 'the proposal is loaded');
  return { rt, bus, read, result };
}

const gainsOf = (d: { kp: { value: number }; ti: { value: number }; td: { value: number } }) => ({
  kp: d.kp.value,
  ti: d.ti.value,
  td: d.td.value,
});

t.test(
  'REST: an APPLY in a batch after an edit of the chain is refused, and nothing of the batch is kept',
  async (t) => {
    const { rt, read } = await proposedApp(t);
    const heat = gainsOf(await read('Heat PID'));
    const r = await rt.post('blocks/batch/patch', [
      { id: 'Heat PWM', type: 'ActuatorPwm', data: { period: s(300) } },
      { id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'APPLY' } } },
    ]);
    t.equal(r.status, 422, JSON.stringify(r.body));
    t.match(
      JSON.stringify(r.body),
      /batch item 1 \(id 'Heat PID'\).*cannot apply: since the result was measured, the PWM period of Heat PWM changed from 10 s to 300 s; DISCARD and tune again/,
    );
    t.equal((await read('Heat PWM')).period.value, 10, 'the period edit is rolled back');
    t.same(gainsOf(await read('Heat PID')), heat, 'the gains stay');
    t.equal((await read('Heat PID')).tuning.state, 'PROPOSED', 'the result still waits');
  },
);

t.test('REST: an APPLY in a batch that fails later is undone whole, the pair’s gains too', async (t) => {
  // The APPLY writes the pair's gains itself; a batch that fails after it says "nothing was
  // changed", so the pair must be as it was (read here in memory; the store rolls back with the batch).
  const { rt, read } = await proposedApp(t);
  const heat = gainsOf(await read('Heat PID'));
  const cool = gainsOf(await read('Cool PID'));
  const r = await rt.post('blocks/batch/patch', [
    { id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'APPLY' } } },
    { id: 'Heat PWM', type: 'ActuatorPwm', data: { period: s(-5) } },
  ]);
  t.equal(r.status, 422, JSON.stringify(r.body));
  t.match(JSON.stringify(r.body), /batch item 1 \(id 'Heat PWM'\).*nothing was changed/);
  t.equal((await read('Heat PID')).tuning.state, 'PROPOSED', 'the result still waits');
  t.same(gainsOf(await read('Heat PID')), heat, 'the gains of the Heat PID stay');
  t.same(gainsOf(await read('Cool PID')), cool, 'the gains of its pair stay');
  // The same batch without the bad item applies both.
  const ok = await rt.post('blocks/batch/patch', [
    { id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'APPLY' } } },
  ]);
  t.equal(ok.status, 200, JSON.stringify(ok.body));
  t.equal((await read('Heat PID')).tuning.state, 'APPLIED');
  const applied = gainsOf(await read('Cool PID'));
  t.not(applied.kp, cool.kp, 'the pair has its new gains');
  // An UNDO in a batch that fails later: the applied gains stay, the pair's too.
  const undo = await rt.post('blocks/batch/patch', [
    { id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'UNDO' } } },
    { id: 'Heat PWM', type: 'ActuatorPwm', data: { period: s(-5) } },
  ]);
  t.equal(undo.status, 422, JSON.stringify(undo.body));
  t.equal((await read('Heat PID')).tuning.state, 'APPLIED');
  t.same(gainsOf(await read('Cool PID')), applied, 'the pair keeps the applied gains');
});

t.test('MQTT: a timing edit and an APPLY handled back to back: the APPLY is refused', async (t) => {
  const { rt, bus, read } = await proposedApp(t);
  const heat = gainsOf(await read('Heat PID'));
  const client = await Recorder.connect(bus.brokerUrl(rt.app));
  t.teardown(() => client.end());
  await until(() => rt.app.mqtt.connected, 'the runtime to connect');
  const dropped = () => (rt.app.status().mqtt as { dropped: { blockApi: number } }).dropped.blockApi;
  const before = dropped();
  const message = (body: Record<string, unknown>) => JSON.stringify({ serviceId: SERVICE_ID, ...body });
  await Promise.all([
    client.publish(
      controllerTopic('patch'),
      message({
        id: 'Cool Actuator',
        type: 'DigitalActuator',
        data: { constraints: { minOn: { duration: s(180), enabled: true } } },
      }),
    ),
    client.publish(
      controllerTopic('patch'),
      message({ id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'APPLY' } } }),
    ),
  ]);
  await until(() => dropped() > before, 'the APPLY to be dropped');
  t.equal(dropped(), before + 1, 'only the APPLY was dropped');
  t.equal((await read('Cool Actuator')).constraints.minOn.duration.value, 180, 'the edit is taken');
  t.equal((await read('Heat PID')).tuning.state, 'PROPOSED', 'the result still waits');
  t.same(gainsOf(await read('Heat PID')), heat, 'the gains stay');
});

t.test(
  'REST: a proposal from a version that recorded no setup, from its backup: APPLY refused, DISCARD taken',
  async (t) => {
    // Loaded as a restart brings it back after an upgrade: nothing tells what it was measured on.
    const bus = await VARIANTS.find((v) => v.name === 'mosquitto')!.setup();
    t.teardown(() => bus.close());
    const rt = await startApp({ ...bus.overrides });
    t.teardown(() => rt.close());
    const { backup } = await proposedBackup();
    const pid = backup.blocks.find((b: { id: string }) => b.id === 'Heat PID');
    for (const k of ['inputNid', 'outputNid', 'pairOutputNid', 'setup']) delete pid.data.tuning.result[k];
    const load = await rt.post('blocks/backup/load', backup);
    t.equal(load.status, 200, JSON.stringify(load.body));
    const read = async (id: string) => (await rt.post('blocks/read', { id })).body.data;
    const heat = gainsOf(await read('Heat PID'));
    const cool = gainsOf(await read('Cool PID'));
    const patch = (command: string) =>
      rt.post('blocks/patch', { id: 'Heat PID', type: 'Pid', data: { tuning: { command } } });
    const r = await patch('APPLY');
    t.equal(r.status, 422, JSON.stringify(r.body));
    t.same(r.body.validation, [{ path: 'data.tuning.command', message: NO_SETUP }]);
    t.same(gainsOf(await read('Heat PID')), heat, 'the gains stay');
    t.same(gainsOf(await read('Cool PID')), cool, "and its pair's");
    t.equal((await read('Heat PID')).tuning.state, 'PROPOSED', 'the result still waits');
    t.equal((await patch('DISCARD')).status, 200);
    t.equal((await read('Heat PID')).tuning.state, 'IDLE');
  },
);

t.test('REST: a STOP in a batch that fails later leaves the tuning running as it was', async (t) => {
  // The batch says "nothing was changed": the relay goes on with what it measured, not measuring
  // again from the start as after a restart.
  const { rt, read } = await proposedApp(t);
  const started = await rt.post('blocks/patch', {
    id: 'Heat PID',
    type: 'Pid',
    data: { tuning: { command: 'START' } },
  });
  t.equal(started.status, 200, JSON.stringify(started.body));
  let message = '';
  for (let i = 0; i < 50 && !/^relay running/.test(message); i++) {
    message = (await read('Heat PID')).tuning.message;
    if (!/^relay running/.test(message)) await sleep(100);
  }
  t.match(message, /^relay running/, 'the relay runs');
  const r = await rt.post('blocks/batch/patch', [
    { id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'STOP' } } },
    { id: 'Heat PWM', type: 'ActuatorPwm', data: { period: s(-5) } },
  ]);
  t.equal(r.status, 422, JSON.stringify(r.body));
  // Two of the PID's updates after the batch (each counts its elapsed time).
  const elapsed = async () => (await read('Heat PID')).tuning.elapsed.value as number;
  const at = await elapsed();
  while ((await elapsed()) < at + 2) await sleep(100);
  const after = (await read('Heat PID')).tuning;
  t.equal(after.state, 'RUNNING');
  t.equal(after.message, message, 'the relay goes on as it was');
  t.equal((await read('Cool PID')).tuning.tunedBy.id, 'Heat PID', 'its pair still follows it');
});
