// A body naming one block by its id and another by its nid (a client holding a block as it was
// before a backup load gave its nid to another block, or a script mixing two bodies) read,
// wrote, patched or deleted the block of the nid, and answered 200: a delete of "Heater" with a
// nid that is now "Cooler"'s deleted "Cooler". The specification uses the id of a read or delete
// ("only id is used"); Brewblox uses the nid ("nid wins"). Where the two name different blocks
// the body contradicts itself: it is refused (409), naming both, and nothing is changed. A nid
// whose id names no block still finds its block, as Brewblox does (a block renamed since).
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('a body whose id and nid name two different blocks is refused and changes nothing', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const pair = (id: string, setting: number) => ({
    id,
    type: 'SetpointSensorPair',
    data: { storedSetting: { __objtype: 'Quantity', unit: 'degC', value: setting } },
  });
  const heater = (await post('blocks/create', pair('Heater', 60))).body;
  const cooler = (await post('blocks/create', pair('Cooler', 4))).body;
  t.ok(heater.nid && cooler.nid && heater.nid !== cooler.nid);
  const mixed = { id: 'Heater', nid: cooler.nid };
  const setting = async (id: string) => (await post('blocks/read', { id })).body.data?.storedSetting?.value;

  for (const route of ['blocks/read', 'blocks/read/stored', 'blocks/read/logged', 'blocks/delete']) {
    const a = await post(route, mixed);
    t.equal(a.status, 409, `${route}: ${a.raw.slice(0, 200)}`);
    t.match(a.body?.message, /'Heater'/, `${route} names the id`);
    t.match(a.body?.message, /'Cooler'/, `${route} names the block of the nid`);
  }
  const listed = await post('blocks/delete', [mixed]);
  t.equal(listed.status, 409, `a list delete: ${listed.raw.slice(0, 200)}`);
  for (const route of ['blocks/write', 'blocks/patch']) {
    const a = await post(route, { ...pair('Heater', 99), nid: cooler.nid });
    t.equal(a.status, 409, `${route}: ${a.raw.slice(0, 200)}`);
  }
  const batch = await post('blocks/batch/patch', [{ ...pair('Heater', 99), nid: cooler.nid }]);
  t.equal(batch.status, 409, `a batch patch: ${batch.raw.slice(0, 200)}`);

  t.equal(await setting('Heater'), 60, 'the heater is as it was');
  t.equal(await setting('Cooler'), 4, 'the cooler is there, as it was');

  // Bodies that agree, or whose id names no block, are taken as before.
  t.equal((await post('blocks/read', { id: 'Cooler', nid: cooler.nid })).body.id, 'Cooler');
  t.equal(
    (await post('blocks/read', { id: 'Cooler Renamed', nid: cooler.nid })).body.id,
    'Cooler',
    'nid of an id gone',
  );
  t.equal((await post('blocks/read', { nid: cooler.nid })).body.id, 'Cooler');
  t.equal((await post('blocks/read', { id: 'Cooler', nid: 0 })).body.id, 'Cooler', 'nid 0 names no block');
  t.equal((await post('blocks/delete', { id: 'Cooler', nid: cooler.nid })).status, 200);
  t.equal((await post('blocks/read', { id: 'Cooler' })).status, 404);
  t.equal(await setting('Heater'), 60);
});
