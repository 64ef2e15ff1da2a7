// A profile turned off by a block API write over MQTT lets go of its setpoint as a REST write does
// (test/control/profile-let-go.test.ts): the setpoint is no longer driven and has no setting until
// the brewer sets one, and reads so again after a restart. Against a real Mosquitto.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp, type RunningApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { controllerTopic, Recorder, SERVICE_ID, until, untilSubscribed } from './fixtures.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const degC = (value: number) => ({ __objtype: 'Quantity', unit: 'degC', value });

t.test(
  'a profile written with enabled false over MQTT: its setpoint is let go, before and after a restart',
  async (t) => {
    const broker = await startMosquitto();
    t.teardown(() => broker.stop());
    const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-let-go-mqtt-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const start = async () => {
      const rt = await startApp({ mqttUrl: broker.url }, { dataDir });
      await untilSubscribed(rt.app, 8000);
      return rt;
    };
    let rt: RunningApp = await start();
    t.teardown(() => rt.close());
    const setpoint = () => rt.app.runtime.read({ id: 'Setpoint' }).json().data as Record<string, any>;

    const profile = {
      serviceId: SERVICE_ID,
      id: 'Profile',
      type: 'SetpointProfile',
      data: {
        enabled: true,
        targetId: link('Setpoint'),
        start: new Date(Date.now() - 3_600_000).toISOString(),
        points: [
          { time: 0, temperature: degC(12) },
          { time: 86_400, temperature: degC(12) },
        ],
      },
    };
    for (const body of [
      { id: 'Sensor', type: 'TempSensorMock', data: { setting: degC(14) } },
      {
        id: 'Setpoint',
        type: 'SetpointSensorPair',
        data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(20) },
      },
      profile,
    ])
      t.equal((await rt.post('blocks/create', body)).status, 201, `${body.id} created`);
    await until(() => setpoint().setting.value === 12, 'the profile to drive the setpoint at 12 degC');
    t.equal(setpoint().claimedBy.id, 'Profile');

    const pub = await Recorder.connect(broker.url);
    t.teardown(() => pub.end());
    await pub.publish(
      controllerTopic('write'),
      JSON.stringify({ ...profile, data: { ...profile.data, enabled: false } }),
    );
    await until(() => setpoint().claimedBy.id === null, 'the profile to let go');
    t.equal(setpoint().setting.value, null, 'no setting: not the stale 12 degC, not the old 20 degC');
    t.equal(setpoint().settingMode, 'CLAIMED', 'until the brewer sets one');

    await rt.close();
    rt = await start();
    await until(() => setpoint().value.value !== null, "the restarted setpoint's first update");
    t.equal(setpoint().claimedBy.id, null, 'after a restart: not driven');
    t.equal(setpoint().setting.value, null, 'and no setting');
    t.equal(setpoint().storedSetting.value, 20, 'its own setting kept, for the brewer to take over');
  },
);
