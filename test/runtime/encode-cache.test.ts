// The encoding cache never serves a stale text: after every kind of change, the cached JSON of
// each block and of the list equals a fresh encoding, in every read mode and unit preference.
import t, { type Test } from 'tap';
import type { ReadMode } from '../../src/codec/encode.js';
import { ALL, type BlockRuntime } from '../../src/runtime/runtime.js';
import { testRuntime } from '../helpers/runtime.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const MODES: ReadMode[] = ['default', 'stored', 'logged'];

/** Read everything from the cache, so a later change has something to make stale. */
function prime(runtime: BlockRuntime): void {
  for (const mode of MODES) {
    runtime.read(ALL, mode).bytes().toString();
    runtime.read(ALL, mode).bytes();
    for (const b of runtime.blocks()) {
      runtime.read({ id: b.id }, mode).bytes().toString();
      runtime.read({ id: b.id }, mode).bytes();
    }
  }
}

/** runtime.blocks() is kept between changes: it must list the live blocks by nid, as the table has them now. */
function liveByNid(runtime: BlockRuntime): number[] {
  return [...runtime.table.values()].map((b) => b.nid).sort((a, b) => a - b);
}

function same(t: Test, runtime: BlockRuntime, after: string): void {
  t.same(
    runtime.blocks().map((b) => b.nid),
    liveByNid(runtime),
    `blocks() after ${after}`,
  );
  for (const mode of MODES) {
    const fresh = JSON.stringify(runtime.read(ALL, mode).json());
    t.equal(runtime.read(ALL, mode).bytes().toString(), fresh, `all/read ${mode} after ${after}`);
    t.equal(runtime.read(ALL, mode).bytes().toString('utf8'), fresh, `all/read bytes ${mode} after ${after}`);
    for (const b of runtime.blocks()) {
      const cached = runtime.read({ id: b.id }, mode).bytes().toString();
      const fresh = JSON.stringify(runtime.read({ id: b.id }, mode).json());
      if (cached !== fresh) t.equal(cached, fresh, `read ${b.id} ${mode} after ${after}`);
      const bytes = runtime.read({ id: b.id }, mode).bytes().toString('utf8');
      if (bytes !== fresh) t.equal(bytes, fresh, `read bytes ${b.id} ${mode} after ${after}`);
    }
  }
  prime(runtime);
}

function fermenter() {
  const rt = testRuntime();
  const { runtime } = rt;
  runtime.create({ id: 'pins', type: 'MockPins', data: {} });
  runtime.create({
    id: 'sensor',
    type: 'TempSensorMock',
    data: { setting: 20, fluctuations: [{ amplitude: 1, period: 60 }] },
  });
  runtime.create({ id: 'still', type: 'TempSensorMock', data: { setting: 18 } });
  runtime.create({
    id: 'pair',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 21, sensorId: link('sensor') },
  });
  runtime.create({ id: 'heater', type: 'DigitalActuator', data: { hwDevice: link('pins'), channel: 1 } });
  runtime.create({ id: 'pwm', type: 'ActuatorPwm', data: { enabled: true, actuatorId: link('heater'), period: 10 } });
  runtime.create({
    id: 'pid',
    type: 'Pid',
    data: { enabled: true, inputId: link('pair'), outputId: link('pwm'), kp: 60, ti: 3600, td: 0 },
  });
  prime(runtime);
  return rt;
}

t.test('cached and fresh encodings agree after every kind of change', async (t) => {
  const { runtime, clock, units } = fermenter();
  same(t, runtime, 'create');

  runtime.write({ id: 'still', type: 'TempSensorMock', data: { setting: 25 } });
  same(t, runtime, 'write');

  runtime.patch({ id: 'pair', type: 'SetpointSensorPair', data: { storedSetting: 19.5 }, meta: { note: 'patched' } });
  same(t, runtime, 'patch');

  const before = runtime.read({ id: 'sensor' }).bytes().toString();
  clock.advance(5000);
  runtime.tick();
  t.not(runtime.read({ id: 'sensor' }).bytes().toString(), before, 'the fluctuating sensor value moved');
  same(t, runtime, 'an update that changes a value');

  units.temperature = 'degF';
  same(t, runtime, 'a unit change (the preference object changed in place)');
  units.temperature = 'degC';
  same(t, runtime, 'the unit change back');

  const claimedBefore = runtime.read({ id: 'heater' }).bytes().toString();
  runtime.patch({ id: 'pwm', type: 'ActuatorPwm', data: { enabled: false } });
  clock.advance(1000);
  runtime.tick();
  runtime.patch({ id: 'pid', type: 'Pid', data: { enabled: false } });
  clock.advance(1000);
  runtime.tick();
  same(t, runtime, 'claims changing');
  runtime.patch({ id: 'pwm', type: 'ActuatorPwm', data: { enabled: true } });
  runtime.patch({ id: 'pid', type: 'Pid', data: { enabled: true } });
  clock.advance(1000);
  runtime.tick();
  same(t, runtime, 'claims taken again');
  t.ok(claimedBefore.length > 0);

  // A link target renamed: a backup load that gives the sensor a new id and relinks the pair.
  const backup = runtime.backupSave();
  const sensor = backup.blocks.find((b) => b.id === 'sensor')!;
  sensor.id = 'renamed sensor';
  const pair = backup.blocks.find((b) => b.id === 'pair')!;
  pair.data.sensorId = link('renamed sensor');
  await runtime.backupLoad(backup);
  same(t, runtime, 'a link target renamed');

  runtime.delete({ id: 'renamed sensor' });
  same(t, runtime, 'a link target deleted');
  clock.advance(2000);
  runtime.tick();
  same(t, runtime, 'the tick after the link target went');

  runtime.delete({ id: 'pwm' });
  same(t, runtime, 'a delete that releases a claim');

  runtime.deleteAll();
  same(t, runtime, 'delete of every block');
});

t.test('a block that did not change is not encoded again', async (t) => {
  const { runtime, clock } = fermenter();
  runtime.read(ALL).bytes().toString();
  const misses = runtime.encodeMisses;
  for (let i = 0; i < 10; i++) runtime.read(ALL).bytes().toString();
  t.equal(runtime.encodeMisses, misses, 'repeated reads are served from the cache');

  clock.advance(1000);
  runtime.tick();
  runtime.read(ALL).bytes().toString();
  const encoded = runtime.encodeMisses - misses;
  t.ok(encoded > 0, 'blocks whose values changed are encoded again');
  t.ok(encoded < runtime.blocks().length, `only those (${encoded} of ${runtime.blocks().length})`);

  const still = runtime.encodeMisses;
  runtime.read({ id: 'still' }).bytes().toString();
  t.equal(runtime.encodeMisses, still, 'the unchanged sensor came from the cache');
  runtime.patch({ id: 'still', type: 'TempSensorMock', data: { setting: 30 } });
  t.match(
    runtime.read({ id: 'still' }).bytes().toString(),
    /"setting":\{"__objtype":"Quantity","__bloxtype":"Quantity","unit":"degC","value":30\}/,
  );
});

t.test('the state emission text is the fresh encoding', async (t) => {
  const { runtime } = fermenter();
  const text = runtime.read(ALL).bytes().toString();
  t.same(JSON.parse(text), runtime.read(ALL).json());
  t.same(JSON.parse(runtime.read(ALL).bytes().toString('utf8')), runtime.read(ALL).json(), 'and its bytes');
  runtime.deleteAll();
  t.equal(
    runtime.read(ALL).bytes().toString(),
    JSON.stringify(runtime.read(ALL).json()),
    'a list of system blocks alone',
  );
});

t.test('joinBytes is head, the parts joined with commas, and tail, as UTF-8', async (t) => {
  const { joinBytes } = await import('../../src/shared/json.js');
  for (const [head, tail] of [
    ['[', ']'],
    ['{"key":"café","data":{', '}}'],
  ]) {
    for (const parts of [[], ['a'], ['a', 'b'], ['{"x":1}', '{"y":"20 °C"}', '{"z":"✓"}']]) {
      const joined = joinBytes(
        head,
        parts.map((p) => Buffer.from(p)),
        tail,
      );
      t.same(joined, Buffer.from(`${head}${parts.join(',')}${tail}`), `${parts.length} parts after ${head}`);
    }
  }
});

t.test('a read within an envelope: the value in the slot, whatever else the message holds', async (t) => {
  const { runtime } = fermenter();
  runtime.patch({ id: 'still', type: 'TempSensorMock', data: {}, meta: { note: 'Gärbottich °C' } });
  // Texts a status or a block's meta may hold: NUL characters, the old fixed slot text, quotes.
  const tricky = '\u0000blocks\u0000 "\u0000" ✓';
  const envelope = <T>(blocks: T) => ({
    key: 'edge-one',
    data: { status: { lastError: tricky }, blocks, relations: [{ source: 'a', target: tricky }], claims: [] },
  });
  const list = runtime.read(ALL);
  const bytes = list.within(envelope);
  t.same(
    JSON.parse(bytes.toString('utf8')),
    envelope(list.json()),
    'the state message: the texts left as they were; the blocks in their place, UTF-8 whole',
  );
  t.not(bytes.buffer, list.bytes().buffer, 'a buffer of its own, not the cached list');

  const one = runtime.read({ id: 'still' }, 'stored');
  t.same(JSON.parse(one.within((b) => [tricky, { b }, tricky]).toString()), [tricky, { b: one.json() }, tricky]);

  const history = runtime.read(ALL, 'history');
  const message = JSON.parse(history.within((data) => ({ key: tricky, data })).toString());
  t.same(message, { key: tricky, data: history.json() }, 'the history message');
  t.ok(Object.keys(message.data).includes('still'), 'with the blocks that have numbers');

  t.throws(() => list.within(() => ({ blocks: [] })), /left out the slot/, 'an envelope without the slot');
  t.throws(() => list.within((b) => ({ b, again: b })), /more than once/, 'an envelope with it twice');
  t.throws(() => list.within(() => undefined), /left out the slot/, 'an envelope that is not JSON');
});

t.test('the block list is one shared array until a block is added or removed', async (t) => {
  const { runtime, clock } = fermenter();
  const first = runtime.blocks();
  t.equal(runtime.blocks(), first, 'the same array between changes');
  clock.advance(3000);
  await runtime.tick();
  runtime.patch({ id: 'pair', type: 'SetpointSensorPair', data: { storedSetting: 18 } });
  runtime.rename({ existing: 'still', desired: 'still2' });
  t.equal(runtime.blocks(), first, 'ticks, patches and renames keep it (no nid changes)');

  runtime.create({ id: 'extra', type: 'TempSensorMock', data: { setting: 10 } });
  const added = runtime.blocks();
  t.not(added, first, 'a create makes a new one');
  t.same(
    added.map((b) => b.nid),
    liveByNid(runtime),
  );
  t.equal(first.length, added.length - 1, 'the old array is left as it was');

  t.throws(() =>
    runtime.batch('create', [
      { id: 'b1', type: 'TempSensorMock', data: {} },
      { id: 'b1', type: 'TempSensorMock', data: {} },
    ]),
  );
  t.same(
    runtime.blocks().map((b) => b.nid),
    liveByNid(runtime),
    'a failed batch leaves the list whole',
  );

  runtime.delete({ id: 'extra' });
  t.same(
    runtime.blocks().map((b) => b.nid),
    liveByNid(runtime),
    'a delete drops the block',
  );
  t.notOk(runtime.blocks().some((b) => b.id === 'extra'));

  const backup = runtime.backupSave();
  runtime.deleteAll();
  t.same(
    runtime.blocks().map((b) => b.nid),
    liveByNid(runtime),
    'after delete of every block',
  );
  await runtime.backupLoad(backup);
  t.same(
    runtime.blocks().map((b) => b.nid),
    liveByNid(runtime),
    'after a backup load',
  );
  t.ok(
    runtime.blocks().some((b) => b.id === 'pid'),
    'the loaded blocks are listed',
  );
});

t.test(
  'the bytes a read hands out stay as they were when the block changes and its slot is written again',
  async (t) => {
    const { runtime, clock } = fermenter();
    const answers: { bytes: Buffer; text: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const bytes = runtime.read({ id: 'sensor' }).bytes();
      answers.push({ bytes, text: bytes.toString('utf8') });
      clock.advance(5000);
      runtime.tick();
      runtime.read(ALL).bytes();
    }
    t.equal(new Set(answers.map((a) => a.text)).size, answers.length, 'the sensor moved on every read');
    for (const [i, a] of answers.entries())
      t.equal(a.bytes.toString('utf8'), a.text, `answer ${i} unchanged after later writes`);
    const list = runtime.read(ALL).bytes();
    const listText = list.toString('utf8');
    clock.advance(5000);
    runtime.tick();
    runtime.read(ALL).bytes();
    runtime.read({ id: 'sensor' }).bytes();
    t.equal(list.toString('utf8'), listText, 'a list handed out is unchanged too');
  },
);

t.test(
  'ByteSlot: the UTF-8 of its text, in a memory block of its own that later texts reuse while they fit',
  async (t) => {
    const { ByteSlot } = await import('../../src/shared/json.js');
    for (const text of ['', 'a', '{"value":"20 °C","ok":"✓"}']) {
      const slot = new ByteSlot(text);
      t.same(slot.view(), Buffer.from(text), JSON.stringify(text));
      t.ok(slot.view().buffer.byteLength < Buffer.poolSize, 'not a shared slab');
    }
    const slot = new ByteSlot('{"value":21.5}');
    const block = slot.view().buffer;
    t.equal(slot.update('{"value":21.5}'), false, 'the same text: unchanged');
    t.equal(slot.update('{"value":21.6}'), true, 'the same length, another text: changed');
    t.equal(slot.view().toString(), '{"value":21.6}');
    t.equal(slot.update('{"value":21.625}'), true, 'a little longer: changed');
    t.equal(slot.view().toString(), '{"value":21.625}');
    t.equal(slot.view().buffer, block, 'written in place while it fits');
    slot.set('{"value":2}');
    t.equal(slot.view().toString(), '{"value":2}', 'shorter');
    t.equal(slot.length, 11);
    const long = JSON.stringify({ value: 'x'.repeat(200) });
    t.equal(slot.update(long), true);
    t.equal(slot.view().toString(), long, 'a text that does not fit gets a larger block');
    t.not(slot.view().buffer, block);
    t.equal(ByteSlot.write(slot, 'é').view().toString(), 'é', 'write() reuses a kept slot');
    t.equal(ByteSlot.write(undefined, 'new').view().toString(), 'new', 'and makes one when there is none');
  },
);
