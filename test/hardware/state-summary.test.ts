import t from 'tap';
import mqtt from 'mqtt';
import { startApp } from '../helpers/app.js';
import { arrayAt, at, objectAt } from '../helpers/json.js';

t.test('the MQTT state carries a short hardware summary; system/status the full report', async (t) => {
  const running = await startApp({ hardware: 'sim', emitInterval: '200' });
  t.teardown(() => running.close());
  const port = running.app.mqtt.brokerPort;
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4 });
  t.teardown(() => client.endAsync());
  const state = await new Promise<any>((resolve) => {
    client.on('message', (_topic, payload) => {
      const msg = JSON.parse(payload.toString());
      if (msg.data.status.hardware?.buses > 0) resolve(msg);
    });
    void client.subscribeAsync('svc/state/edge-one');
  });
  const hw = objectAt(state, 'data', 'status', 'hardware') as {
    mode: string;
    buses: number;
    devices: number;
    errors: number;
  };
  t.equal(hw.mode, 'sim');
  t.equal(
    hw.buses,
    arrayAt(running.app.hardware.status(), 'onewire', 'buses').length,
    'bus count matches the full report',
  );
  t.ok(hw.devices >= 5, `the demo devices are counted (${hw.devices})`);
  t.equal(hw.errors, 0);
  t.ok(JSON.stringify(hw).length < 300, 'a summary, not the full report');
  const status = await (await fetch(`${running.base}/system/status`)).json();
  t.ok(Array.isArray(at(status, 'hardware', 'onewire', 'buses')), 'system/status keeps the full per-bus report');
});
