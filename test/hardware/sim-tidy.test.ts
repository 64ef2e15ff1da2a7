// Sim tidiness (issue 14.8): sim/faults/clear also releases forced temperatures, and a PWM's
// desiredSetting outside 0-100 % is explained in the API docs and clipped in `setting`.
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('sim/faults/clear releases forced temperatures; plugged state stays', async (t) => {
  const h = await startApp({ hardware: 'sim' }, { listen: false });
  t.teardown(() => h.close());
  const device = async (name: string) =>
    (await h.app.http.inject({ method: 'GET', url: `/edge-one/sim/devices/${name}` })).json();
  const plantBeer = (await device('beer')).temperature;
  t.equal((await h.post('sim/devices/beer/temperature', { value: 30.5 })).body.forced, true);
  t.equal((await h.post('sim/devices/room/unplug')).status, 200);
  t.equal((await h.post('sim/devices/air/fault', { fault: 'crc', count: 3 })).status, 200);
  const cleared = await h.post('sim/faults/clear');
  t.equal(cleared.status, 200);
  const beer = cleared.body.devices.find((d: { name: string }) => d.name === 'beer');
  t.equal(beer.forced, false, 'the forced temperature is released');
  t.ok(
    Math.abs(beer.temperature - plantBeer) < 0.5,
    `the sensor follows the plant again (${beer.temperature} vs ${plantBeer})`,
  );
  t.equal(
    cleared.body.devices.find((d: { name: string }) => d.name === 'room').plugged,
    false,
    'an unplugged device stays unplugged',
  );
  t.match(cleared.body.devices.find((d: { name: string }) => d.name === 'air').faults, { crc: 0 }, 'faults cleared');
  const spec = (await h.app.http.inject({ method: 'GET', url: '/edge-one/api/doc/json' })).body;
  t.match(spec, /release forced temperatures/, 'the route says so');
});

t.test('PWM desiredSetting outside 0-100: kept as asked, clipped in setting, explained in the docs', async (t) => {
  const h = await startApp({}, { listen: false });
  t.teardown(() => h.close());
  t.equal((await h.post('blocks/create', { id: 'Relay', type: 'DigitalActuator', data: {} })).status, 201);
  for (const [stored, setting] of [
    [360, 100],
    [-359.77, 0],
    [42, 42],
  ] as const) {
    const r = await h.post('blocks/create', {
      id: `PWM ${stored}`,
      type: 'ActuatorPwm',
      data: { storedSetting: stored, period: 10 },
    });
    t.equal(r.status, 201, JSON.stringify(r.body));
    const read = (await h.post('blocks/read', { id: `PWM ${stored}` })).body.data;
    t.equal(read.desiredSetting, stored, `desiredSetting ${stored} kept as asked`);
    t.equal(read.setting, setting, `setting clipped to ${setting}`);
  }
  const spec = (await h.app.http.inject({ method: 'GET', url: '/edge-one/api/doc/json' })).body;
  t.match(spec, /before clipping: it may lie outside 0-100 %/, 'the Swagger description explains it');
});
