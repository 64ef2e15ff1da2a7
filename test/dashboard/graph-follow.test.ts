// How the graph follows renamed blocks (web/src/graph-renames.ts), under Node: by nid and type
// within one block set, through several renames, never into another block that took the nid or
// the name, and never again once followed (the user may have taken the new name's lines off).
// A backup load or another data dir (a reinstall, another controller) is another block set, whose
// nids name other blocks: the graph used to say "Beer Sensor was renamed to Fridge Sensor" there,
// drawing the loaded block's line as the old one's. Nothing is followed across block sets now.
import t from 'tap';
import { emptyMemory, followRenames, lookOf, ownerOf, readMemory, remember } from '../../web/src/graph-renames.js';

const live = (...blocks: Array<[string, number, string]>) =>
  new Map(blocks.map(([id, nid, type]) => [id, { id, nid, type }]));
const OWN = 'edge-one';
const SET = 'set-1';

t.test('a field belongs to the longest block id it starts with', async (t) => {
  const ids = ['Fridge', 'Fridge/Beer'];
  t.equal(ownerOf('edge-one/Fridge/Beer/value[degC]', OWN, ids), 'Fridge/Beer');
  t.equal(ownerOf('edge-one/Fridge/value[degC]', OWN, ids), 'Fridge');
  t.equal(ownerOf('edge-two/Fridge/value[degC]', OWN, ids), undefined, 'another controller');
});

t.test('a rename is followed once, by nid and type; the old field stays', async (t) => {
  const fields = ['edge-one/Beer/setting[degC]', 'edge-one/Beer/value[degC]', 'edge-two/Beer/value[degC]'];
  const before = live(['Beer', 100, 'SetpointSensorPair']);
  const memory = remember(fields, OWN, emptyMemory(), before, SET);
  t.same(memory.blocks, { Beer: { nid: 100, type: 'SetpointSensorPair' } });

  const after = live(['Tank 1', 100, 'SetpointSensorPair']);
  const f = followRenames(fields, OWN, memory, after, SET);
  t.same(f.fields, [
    'edge-one/Beer/setting[degC]',
    'edge-one/Tank 1/setting[degC]',
    'edge-one/Beer/value[degC]',
    'edge-one/Tank 1/value[degC]',
    'edge-two/Beer/value[degC]',
  ]);
  t.same(f.renamed, [['Beer', 'Tank 1']]);
  t.same(f.memory.former, { Beer: 'Tank 1' });

  // The user takes the new name's value off: it is not added again.
  const chosen = f.fields.filter((x) => x !== 'edge-one/Tank 1/value[degC]');
  const again = followRenames(chosen, OWN, f.memory, after, SET);
  t.same(again.fields, chosen);
  t.same(again.renamed, []);

  t.same(followRenames(fields, OWN, memory, new Map(), SET).fields, fields, 'nothing before the blocks are known');
});

t.test('another block with the nid, or with the old name, is not the renamed block', async (t) => {
  const fields = ['edge-one/Beer/value[degC]'];
  const memory = remember(fields, OWN, emptyMemory(), live(['Beer', 100, 'TempSensorOneWire']), SET);
  // Another block has nid 100 (a create that named it, after Beer was deleted).
  t.same(followRenames(fields, OWN, memory, live(['Heat PID', 100, 'Pid']), SET).fields, fields);

  // Renamed, then a new block took the old name: the old name's field is that block's now.
  const f = followRenames(fields, OWN, memory, live(['Fermenter', 100, 'TempSensorOneWire']), SET);
  const reused = live(['Fermenter', 100, 'TempSensorOneWire'], ['Beer', 120, 'TempSensorOneWire']);
  const kept = remember(f.fields, OWN, f.memory, reused, SET);
  t.same(kept.former, {}, 'no longer a former name');
  t.same(kept.blocks.Beer, { nid: 120, type: 'TempSensorOneWire' });
});

t.test('a backup load gives the nids to other blocks: nothing is followed, and the marks go', async (t) => {
  // Blocks set up by hand: nids 100 and 101 on this data dir.
  const fields = ['edge-one/Beer Sensor/value[degC]', 'edge-one/Heat PWM/value'];
  const mine = live(['Beer Sensor', 100, 'TempSensorOneWire'], ['Heat PWM', 101, 'ActuatorPwm']);
  const memory = remember(fields, OWN, emptyMemory(), mine, SET);
  t.same(memory.blocks, {
    'Beer Sensor': { nid: 100, type: 'TempSensorOneWire' },
    'Heat PWM': { nid: 101, type: 'ActuatorPwm' },
  });
  // Another controller's (or a Spark's) backup loaded: its blocks have the same nids and types.
  const loaded = live(['Fridge Sensor', 100, 'TempSensorOneWire'], ['Cool PWM', 101, 'ActuatorPwm']);
  const f = followRenames(fields, OWN, memory, loaded, 'set-2');
  t.same(f.fields, fields, 'no field added');
  t.same(f.renamed, [], 'no rename said');
  t.same(f.memory.former, {});
  t.same(f.memory.blocks, {}, 'the blocks of the other set are forgotten');
  t.equal(f.memory.set, 'set-2');
  // Renamed afterwards, in the loaded set: followed again.
  const moved = remember(['edge-one/Fridge Sensor/value[degC]'], OWN, f.memory, loaded, 'set-2');
  const g = followRenames(
    ['edge-one/Fridge Sensor/value[degC]'],
    OWN,
    moved,
    live(['Fridge', 100, 'TempSensorOneWire']),
    'set-2',
  );
  t.same(g.renamed, [['Fridge Sensor', 'Fridge']]);
});

t.test('a reinstall (a fresh data dir, nids from 100 again): nothing is followed', async (t) => {
  const fields = ['edge-one/Beer Sensor/value[degC]'];
  const memory = remember(fields, OWN, emptyMemory(), live(['Beer Sensor', 100, 'TempSensorOneWire']), SET);
  // The browser kept its memory; the new data dir's first block is another sensor with nid 100.
  const fresh = live(['Fridge Sensor', 100, 'TempSensorOneWire']);
  t.same(followRenames(fields, OWN, memory, fresh, 'set-new').renamed, []);
  // A memory from before the block set was kept says nothing of the set: not followed either.
  const old = readMemory(
    JSON.stringify({ blocks: { 'Beer Sensor': { nid: 100, type: 'TempSensorOneWire' } }, former: {} }),
  );
  t.same(followRenames(fields, OWN, old, fresh, SET).fields, fields);
  // Nor while the page does not know the set yet.
  t.same(followRenames(fields, OWN, memory, fresh, undefined).renamed, []);
  t.same(remember(fields, OWN, memory, fresh, undefined), memory, 'and the memory is kept as it is');
});

t.test('several renames: every former name follows the block to its name now', async (t) => {
  const m0 = remember(['edge-one/A/value'], OWN, emptyMemory(), live(['A', 100, 'Pid']), SET);
  const f1 = followRenames(['edge-one/A/value'], OWN, m0, live(['B', 100, 'Pid']), SET);
  const f2 = followRenames(f1.fields, OWN, f1.memory, live(['C', 100, 'Pid']), SET);
  t.same(f2.fields, ['edge-one/A/value', 'edge-one/B/value', 'edge-one/C/value']);
  t.same(f2.memory.former, { A: 'C', B: 'C' });
  // Renamed back to A: A is a block again, B still a former name.
  const f3 = followRenames(f2.fields, OWN, f2.memory, live(['A', 100, 'Pid']), SET);
  t.same(f3.memory.former, { B: 'A', C: 'A' });
  t.same(f3.fields, ['edge-one/A/value', 'edge-one/B/value', 'edge-one/C/value']);
});

t.test('a damaged memory is read as empty where it is damaged', async (t) => {
  t.same(readMemory('not json'), emptyMemory());
  t.same(readMemory('[1]'), emptyMemory());
  t.same(readMemory('{"blocks": {"A": {"nid": "x"}, "B": {"nid": 3, "type": "Pid"}}, "former": {"A": 1, "C": "B"}}'), {
    blocks: { B: { nid: 3, type: 'Pid' } },
    former: { C: 'B' },
  });
  t.same(readMemory('{"blocks": {}, "former": {}, "set": "s"}'), { blocks: {}, former: {}, set: 's' });
  t.same(readMemory('{"blocks": {}, "former": {}, "set": 5}'), emptyMemory());
});

t.test("a former name's field is drawn as its block's: same colour, same unit and axis", async (t) => {
  const memory = { blocks: { Keg: { nid: 130, type: 'AnalogSensorI2c' } }, former: { Keg: 'Keg 2' } };
  // The page knows an analog input's unit from the live block, which has its new name.
  const known = (p: { block: string; name: string }) => (p.block === 'Keg 2' && p.name === 'value' ? 'bar' : null);
  const look = lookOf(OWN, memory, known);
  t.equal(look.label('edge-one/Keg/value'), 'Keg (now Keg 2) · Value (bar)');
  t.equal(look.scale('edge-one/Keg/value'), 'unit:bar', 'on the axis of the new name’s field');
  t.equal(look.scale('edge-one/Keg 2/value'), 'unit:bar');
  t.equal(look.group('edge-one/Keg/value'), look.group('edge-one/Keg 2/value'), 'in its colour');
  t.equal(look.label('edge-one/Keg 2/value'), 'Keg 2 · Value (bar)');
});
