// The sim REST endpoints: present only in sim mode, 422 naming the field for bad input, 404
// for unknown devices, buses and lines.
import t from 'tap';
import { simApp } from './sim-app.js';

t.test('bad input and unknown names', async (t) => {
  const s = await simApp();
  t.teardown(() => s.close());
  const expect422 = async (route: string, body: unknown, path: string) => {
    const r = await s.post(route, body);
    t.equal(r.status, 422, `${route} ${JSON.stringify(body)}: ${r.body?.message}`);
    t.equal(r.body.validation?.[0]?.path, path, `names ${path}`);
    t.equal(r.body.error, 'Unprocessable Entity');
  };
  await expect422('sim/devices/beer/temperature', { value: 'warm' }, 'value');
  await expect422('sim/devices/beer/temperature', { value: 300 }, 'value');
  await expect422('sim/devices/beer/temperature', {}, 'value');
  await expect422('sim/devices/beer/temperature', { value: 20, unit: 'degF' }, 'unit');
  await expect422('sim/devices/relays/temperature', { value: 20 }, 'device');
  await expect422('sim/devices/beer/fault', { fault: 'smoke' }, 'fault');
  await expect422('sim/devices/beer/fault', { fault: 'crc', count: 0 }, 'count');
  await expect422('sim/devices/beer/fault', { fault: 'zero', count: 2 }, 'count');
  await expect422('sim/buses/ds2482-sim-0x18-ch0/fault', { fault: 'open' }, 'fault');
  await expect422('sim/plant', { ambient: 'hot' }, 'ambient');
  await expect422('sim/plant', { beer: 500 }, 'beer');
  await expect422('sim/plant', { humidity: 50 }, 'humidity');
  await expect422('sim/gpio/door/level', { level: 2 }, 'level');
  await expect422('sim/gpio/fan/level', { level: 1 }, 'line');

  const notObject = await s.post('sim/plant', [1, 2]);
  t.equal(notObject.status, 400);

  for (const [method, route] of [
    ['GET', 'sim/devices/nope'],
    ['POST', 'sim/devices/nope/unplug'],
    ['POST', 'sim/devices/nope/fault'],
    ['POST', 'sim/buses/nope/fault'],
    ['POST', 'sim/gpio/nope/level'],
  ] as const) {
    const body = route.endsWith('fault') ? { fault: 'clear' } : route.endsWith('level') ? { level: 1 } : undefined;
    const r = await s.call(method, route, body);
    t.equal(r.status, 404, `${method} ${route}`);
    t.match(r.body.message, /nope/);
  }
});

t.test('devices by name, address or kernel name; plant read and change', async (t) => {
  const s = await simApp();
  t.teardown(() => s.close());
  const list = (await s.get('sim/devices')).body;
  t.same(
    list.map((d: any) => d.name),
    ['beer', 'air', 'room', 'herms', 'relays', 'spare-io'],
    'the demo fermenter',
  );
  const beer = list[0];
  t.equal((await s.get(`sim/devices/${beer.address}`)).body.name, 'beer');
  t.equal((await s.get(`sim/devices/${beer.kernelName}`)).body.name, 'beer');
  const forced = (await s.post('sim/devices/beer/temperature', { value: 30.5 })).body;
  t.equal(forced.forced, true);
  t.equal(forced.temperature, 30.5);
  const released = (await s.post('sim/devices/beer/temperature', { value: null })).body;
  t.equal(released.forced, false);
  t.equal(released.temperature, (await s.get('sim/plant')).body.beer, 'back on the plant');
  const plant = (await s.post('sim/plant', { ambient: 10, fermentationW: 20 })).body;
  t.equal(plant.ambient, 10);
  t.equal(plant.fermentationW, 20);
  t.same(
    (await s.get('sim/buses')).body.filter((b: any) => b.devices.length).map((b: any) => [b.name, b.devices]),
    [
      ['ds2482-sim-0x18-ch0', ['beer', 'air']],
      ['ds2482-sim-0x18-ch1', ['room', 'herms']],
      ['ds2482-sim-0x18-ch2', ['relays', 'spare-io']],
    ],
  );
  const gpio = (await s.get('sim/gpio')).body;
  t.same(
    gpio.map((g: any) => [g.name, g.line, g.direction]),
    [
      ['fan', 17, 'out'],
      ['door', 27, 'in'],
    ],
  );
});

t.test('no sim endpoints outside sim mode', async (t) => {
  const s = await simApp({ config: { hardware: 'linux', w1Root: '/nonexistent/w1', i2cBuses: '99' } });
  t.teardown(() => s.close());
  t.equal((await s.get('sim/devices')).status, 404);
  t.equal((await s.post('sim/faults/clear')).status, 404);
});
