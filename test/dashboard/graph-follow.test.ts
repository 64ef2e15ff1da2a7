// How the graph follows renamed blocks (web/src/graph-renames.ts), under Node: by nid and type,
// through several renames, never into another block that took the nid or the name, and never
// again once followed (the user may have taken the new name's lines off).
import t from 'tap';
import { emptyMemory, followRenames, lookOf, ownerOf, readMemory, remember } from '../../web/src/graph-renames.js';

const live = (...blocks: Array<[string, number, string]>) =>
  new Map(blocks.map(([id, nid, type]) => [id, { id, nid, type }]));
const OWN = 'edge-one';

t.test('a field belongs to the longest block id it starts with', async (t) => {
  const ids = ['Fridge', 'Fridge/Beer'];
  t.equal(ownerOf('edge-one/Fridge/Beer/value[degC]', OWN, ids), 'Fridge/Beer');
  t.equal(ownerOf('edge-one/Fridge/value[degC]', OWN, ids), 'Fridge');
  t.equal(ownerOf('edge-two/Fridge/value[degC]', OWN, ids), undefined, 'another controller');
});

t.test('a rename is followed once, by nid and type; the old field stays', async (t) => {
  const fields = ['edge-one/Beer/setting[degC]', 'edge-one/Beer/value[degC]', 'edge-two/Beer/value[degC]'];
  const before = live(['Beer', 100, 'SetpointSensorPair']);
  const memory = remember(fields, OWN, emptyMemory(), before);
  t.same(memory.blocks, { Beer: { nid: 100, type: 'SetpointSensorPair' } });

  const after = live(['Tank 1', 100, 'SetpointSensorPair']);
  const f = followRenames(fields, OWN, memory, after);
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
  const again = followRenames(chosen, OWN, f.memory, after);
  t.same(again.fields, chosen);
  t.same(again.renamed, []);

  t.same(followRenames(fields, OWN, memory, new Map()).fields, fields, 'nothing before the blocks are known');
});

t.test('another block with the nid, or with the old name, is not the renamed block', async (t) => {
  const fields = ['edge-one/Beer/value[degC]'];
  const memory = remember(fields, OWN, emptyMemory(), live(['Beer', 100, 'TempSensorOneWire']));
  // A backup gave nid 100 to a PID.
  t.same(followRenames(fields, OWN, memory, live(['Heat PID', 100, 'Pid'])).fields, fields);

  // Renamed, then a new block took the old name: the old name's field is that block's now.
  const f = followRenames(fields, OWN, memory, live(['Fermenter', 100, 'TempSensorOneWire']));
  const reused = live(['Fermenter', 100, 'TempSensorOneWire'], ['Beer', 120, 'TempSensorOneWire']);
  const kept = remember(f.fields, OWN, f.memory, reused);
  t.same(kept.former, {}, 'no longer a former name');
  t.same(kept.blocks.Beer, { nid: 120, type: 'TempSensorOneWire' });
});

t.test('several renames: every former name follows the block to its name now', async (t) => {
  const m0 = remember(['edge-one/A/value'], OWN, emptyMemory(), live(['A', 100, 'Pid']));
  const f1 = followRenames(['edge-one/A/value'], OWN, m0, live(['B', 100, 'Pid']));
  const f2 = followRenames(f1.fields, OWN, f1.memory, live(['C', 100, 'Pid']));
  t.same(f2.fields, ['edge-one/A/value', 'edge-one/B/value', 'edge-one/C/value']);
  t.same(f2.memory.former, { A: 'C', B: 'C' });
  // Renamed back to A: A is a block again, B still a former name.
  const f3 = followRenames(f2.fields, OWN, f2.memory, live(['A', 100, 'Pid']));
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
});

t.test("a former name's field is drawn as its block's: same colour, same unit and axis", async (t) => {
  const memory = { blocks: { Keg: { nid: 130, type: 'AnalogSensorI2c' } }, former: { Keg: 'Keg 2' } };
  // The page knows an analog input's unit from the live block, which has its new name.
  const known = (p: { block: string; name: string }) => (p.block === 'Keg 2' && p.name === 'value' ? 'bar' : null);
  const look = lookOf(OWN, memory, known);
  t.equal(look.label('edge-one/Keg/value'), 'Keg (now Keg 2) · Value (bar)');
  t.equal(look.scale('edge-one/Keg/value'), 'bar', 'on the axis of the new name’s field');
  t.equal(look.scale('edge-one/Keg 2/value'), 'bar');
  t.equal(look.group('edge-one/Keg/value'), look.group('edge-one/Keg 2/value'), 'in its colour');
  t.equal(look.label('edge-one/Keg 2/value'), 'Keg 2 · Value (bar)');
});
