// Patch events after REST and MQTT changes; controller topics handle only our serviceId.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { controllerTopic, Recorder, SERVICE_ID, topic, until, VARIANTS } from './fixtures.js';

for (const variant of VARIANTS) {
  t.test(variant.name, async (t) => {
    const bus = await variant.setup();
    t.teardown(() => bus.close());
    const rt = await startApp({ ...bus.overrides, emitInterval: '5000' });
    t.teardown(() => rt.close());
    await until(() => rt.app.mqtt.connected, 'the runtime to connect');
    const sub = await Recorder.connect(bus.brokerUrl(rt.app));
    t.teardown(() => sub.end());
    await sub.subscribe(topic('patch'));
    const patches = (from: number) => sub.on(topic('patch'), from).map((m) => m.json());
    const changedIds = (p: any) => p.data.changed.map((b: any) => b.id);

    t.test('REST changes produce patch events', async (t) => {
      let from = sub.messages.length;
      const created = await rt.post('blocks/create', { id: 'Sensor', type: 'TempSensorMock', data: { setting: 20 } });
      t.equal(created.status, 201);
      const p1 = (
        await sub.waitFor((m) => changedIds(m.json()).includes('Sensor'), 'the patch of the create', 2000, from)
      ).json();
      t.equal(p1.key, SERVICE_ID);
      t.equal(p1.type, 'Spark.patch');
      t.type(p1.ttl, 'string');
      t.same(p1.data.deleted, []);
      t.same(p1.data.changed[0], created.body, 'the changed block is the REST answer');

      from = sub.messages.length;
      await rt.post('blocks/patch', { id: 'Sensor', type: 'TempSensorMock', data: { setting: 25 } });
      const p2 = (
        await sub.waitFor((m) => changedIds(m.json()).includes('Sensor'), 'the patch of the patch', 2000, from)
      ).json();
      t.equal(p2.data.changed[0].data.setting.value, 25);

      from = sub.messages.length;
      t.equal((await rt.post('blocks/delete', { id: 'Sensor' })).status, 200);
      const p3 = (
        await sub.waitFor((m) => m.json().data.deleted.includes('Sensor'), 'the patch of the delete', 2000, from)
      ).json();
      t.same(p3.data.changed, []);
      t.equal(
        sub.on(topic('patch')).some((m) => m.retain),
        false,
        'patches are not retained',
      );
    });

    t.test('MQTT changes produce patch events', async (t) => {
      let from = sub.messages.length;
      await sub.publish(
        controllerTopic('create'),
        JSON.stringify({ id: 'Bus Sensor', serviceId: SERVICE_ID, type: 'TempSensorMock', data: { setting: 18 } }),
      );
      await sub.waitFor((m) => changedIds(m.json()).includes('Bus Sensor'), 'the patch of an MQTT create', 2000, from);
      t.equal((await rt.post('blocks/read', { id: 'Bus Sensor' })).body.data.setting.value, 18, 'created over MQTT');

      from = sub.messages.length;
      await sub.publish(
        controllerTopic('write'),
        JSON.stringify({ id: 'Bus Sensor', serviceId: SERVICE_ID, type: 'TempSensorMock', data: { setting: 19 } }),
      );
      const w = await sub.waitFor(
        (m) => changedIds(m.json()).includes('Bus Sensor'),
        'the patch of an MQTT write',
        2000,
        from,
      );
      t.equal(w.json().data.changed[0].data.setting.value, 19);

      from = sub.messages.length;
      await sub.publish(
        controllerTopic('patch'),
        JSON.stringify({ id: 'Bus Sensor', serviceId: SERVICE_ID, type: 'TempSensorMock', data: { connected: false } }),
      );
      const p = await sub.waitFor(
        (m) => changedIds(m.json()).includes('Bus Sensor'),
        'the patch of an MQTT patch',
        2000,
        from,
      );
      t.equal(p.json().data.changed[0].data.connected, false);
      t.equal(p.json().data.changed[0].data.setting.value, 19, 'patch merged');

      from = sub.messages.length;
      await sub.publish(controllerTopic('delete'), JSON.stringify({ id: 'Bus Sensor', serviceId: SERVICE_ID }));
      await sub.waitFor((m) => m.json().data.deleted.includes('Bus Sensor'), 'the patch of an MQTT delete', 2000, from);
      t.equal((await rt.post('blocks/read', { id: 'Bus Sensor' })).status, 404);
    });

    t.test('a message for another serviceId is ignored', async (t) => {
      const from = sub.messages.length;
      const others = [{ serviceId: 'edge-two' }, {}, { serviceId: null }, { serviceId: SERVICE_ID.toUpperCase() }];
      for (const [i, extra] of others.entries()) {
        await sub.publish(
          controllerTopic('create'),
          JSON.stringify({ id: `Foreign ${i}`, type: 'TempSensorMock', data: {}, ...extra }),
        );
      }
      await rt.post('blocks/create', { id: 'Victim', type: 'TempSensorMock', data: { setting: 10 } });
      for (const action of ['write', 'patch']) {
        await sub.publish(
          controllerTopic(action),
          JSON.stringify({ id: 'Victim', serviceId: 'edge-two', type: 'TempSensorMock', data: { setting: 99 } }),
        );
      }
      await sub.publish(controllerTopic('delete'), JSON.stringify({ id: 'Victim', serviceId: 'edge-two' }));
      // A message for us, sent last: once its patch is out, every earlier message was handled.
      await sub.publish(
        controllerTopic('create'),
        JSON.stringify({ id: 'Barrier', serviceId: SERVICE_ID, type: 'TempSensorMock', data: {} }),
      );
      await sub.waitFor((m) => changedIds(m.json()).includes('Barrier'), 'the barrier patch', 2000, from);
      for (const i of others.keys())
        t.equal((await rt.post('blocks/read', { id: `Foreign ${i}` })).status, 404, `Foreign ${i} not created`);
      t.equal(
        (await rt.post('blocks/read', { id: 'Victim' })).body.data.setting.value,
        10,
        'not written, patched or deleted',
      );
      const seen = patches(from).flatMap((p) => [...changedIds(p), ...p.data.deleted]);
      t.same(seen.sort(), ['Barrier', 'Victim'], 'patches only for our own changes');
    });
  });
}
