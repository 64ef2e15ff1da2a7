// Claims across a kill -9 of the built CLI with control off (settings/enabled false): no block
// runs after the restart, so before claims were taken from the stored links at load the PID's
// output read as free (claimedBy null), and a setting written to it went to STORED, the PID's
// hold on it lost. Needs `npm run build`.
// tags: slow (kill -9 of the built CLI)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { postJson, startCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const degC = (value: number) => ({ __objtype: 'Quantity', unit: 'degC', value });

t.test('with control off across a kill -9, a PID still holds its output and a write keeps it CLAIMED', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-claims-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const args = ['--data-dir', dataDir, '--mqtt-port', '0'];
  let cli = await startCli(args, {}, t);
  const api = () => `${cli.base}/edge-one`;
  const post = async (route: string, body: unknown) => {
    const res = await postJson(`${api()}/${route}`, body);
    if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const read = async (id: string) => (await post('blocks/read', { id })).data;

  await post('blocks/create', { id: 'Sensor', type: 'TempSensorMock', data: { setting: degC(18) } });
  await post('blocks/create', {
    id: 'Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(20) },
  });
  await post('blocks/create', { id: 'Heater', type: 'ActuatorAnalogMock', data: { storedSetting: 40 } });
  await post('blocks/create', {
    id: 'PID',
    type: 'Pid',
    data: { enabled: true, inputId: link('Setpoint'), outputId: link('Heater'), kp: 10, ti: 0, td: 0 },
  });
  await until(async () => (await read('Heater')).claimedBy.id === 'PID', 'the PID claiming its output');
  const off = await fetch(`${api()}/settings/enabled`, {
    method: 'PUT',
    body: JSON.stringify({ enabled: false }),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(off.status, 200, 'control off');
  cli.child.kill('SIGKILL');
  await cli.exited;

  cli = await startCli(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  t.same(await (await fetch(`${api()}/settings/enabled`)).json(), { enabled: false }, 'still off after the restart');
  const heater = await read('Heater');
  t.equal(heater.claimedBy.id, 'PID', 'the output names its PID, with no block running');
  t.equal(heater.settingMode, 'CLAIMED');
  const written = await post('blocks/patch', { id: 'Heater', type: 'ActuatorAnalogMock', data: { storedSetting: 77 } });
  t.equal(written.data.storedSetting, 77, 'the setting is kept for later');
  t.equal(written.data.settingMode, 'CLAIMED', 'but the PID keeps its output: not handed over to STORED');
  t.equal(written.data.claimedBy.id, 'PID');
});
