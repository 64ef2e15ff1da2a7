// A refusal quotes what the body named (its id, its type, a data key), and a 422 without `type`
// builds a body to send from the body's own id. None of them was bounded: a 5,000-character id
// gave a 10 KB answer, and one of megabytes (up to the body limit) was echoed whole, twice. A
// refusal now quotes such text cut short (drivers/schema-check.ts, as a route schema's refusal
// does); an id too long to name a block is told its length, and offered no body to send. A short
// id stays whole in the example, so that it can be copied. REST and MQTT share the path.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { createLogger } from '../../src/log.js';
import { Recorder, until, untilSubscribed } from '../mqtt/fixtures.js';

const LONG = 'x'.repeat(5000);
/** A run of the long text longer than any name the API takes (an id: 200): echoed whole. */
const ECHOED = /x{201}/;
/** An answer quoting a name cut short stays well under this (the wording of the rule included). */
const SMALL = 1500;

t.test('REST: no refusal echoes a long id, type or key whole', async (t) => {
  const a = await startApp({ hardware: 'sim' }, { listen: false });
  t.teardown(() => a.close());
  t.equal((await a.post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: {} })).status, 201);

  for (const route of ['blocks/patch', 'blocks/write']) {
    const r = await a.post(route, { nid: 100, id: LONG, data: {} });
    t.equal(r.status, 422, route);
    t.ok(r.raw.length < SMALL, `${route}: ${r.raw.length} characters`);
    t.notMatch(r.raw, ECHOED, `${route}: the id is not echoed whole`);
    const id = r.body.validation.find((v: { path: string }) => v.path === 'id');
    t.match(id?.message, /1 to 200 characters.*; it has 5000/, `${route}: the id is told its length`);
    const type = r.body.validation.find((v: { path: string }) => v.path === 'type');
    t.equal(type?.message, "required: block 'Beer' is a TempSensorMock", `${route}: the type named, no body to send`);
  }

  // An id of a block name's length is kept whole in the example: it can be copied.
  const long200 = 'y'.repeat(200);
  const copyable = await a.post('blocks/patch', { nid: 100, id: long200, data: {} });
  t.equal(copyable.status, 422);
  t.match(copyable.body.validation[0].message, `send {"id":"${long200}","nid":100,"type":"TempSensorMock"`);
  t.ok(copyable.raw.length < SMALL, `a 200-character id: ${copyable.raw.length} characters`);

  const cases: Array<[string, unknown, number, RegExp]> = [
    ['blocks/read', { id: LONG }, 404, /no block with id 'x+\.\.\.'/],
    ['blocks/delete', { id: LONG }, 404, /no block with id 'x+\.\.\.'/],
    ['blocks/patch', { id: LONG, type: 'TempSensorMock', data: {} }, 422, /id: must be a string of 1 to 200/],
    ['blocks/rename', { existing: LONG, desired: 'B' }, 404, /no block with id 'x+\.\.\.'/],
    ['blocks/patch', { id: 'Beer', type: LONG, data: {} }, 409, /cannot change it to 'x+\.\.\.'/],
    ['blocks/create', { id: 'A', type: LONG, data: {} }, 422, /unknown block type 'x+\.\.\.'/],
    ['blocks/patch', { id: 'Beer', type: 'TempSensorMock', data: { [LONG]: 1 } }, 422, /unknown field 'x+\.\.\.'/],
    [
      'blocks/patch',
      { id: 'Beer', type: 'TempSensorMock', data: { [`setting[${LONG}]`]: 1 } },
      422,
      /unknown unit 'x+\.\.\.'/,
    ],
    ['blocks/batch/patch', [{ nid: 100, id: LONG, data: {} }], 422, /batch item 0 \(id 'x+\.\.\.'\)/],
    [
      'blocks/create',
      { id: 'P', type: 'SetpointSensorPair', data: { sensorId: { __objtype: 'Link', id: LONG } } },
      422,
      /block 'x+\.\.\.' does not exist/,
    ],
    [
      'blocks/patch',
      { id: 'Beer', type: 'TempSensorMock', data: { setting: { value: 1, unit: LONG } } },
      422,
      /unknown unit 'x+\.\.\.'/,
    ],
    [
      'blocks/patch',
      { id: 'Beer', type: 'TempSensorMock', data: { setting: { __objtype: LONG, value: 1 } } },
      422,
      /expected a Quantity, got a x+\.\.\./,
    ],
    [
      'blocks/backup/load',
      { blocks: [{ id: LONG, nid: 200, type: LONG, data: {} }], store: [] },
      422,
      /block 0 \(id 'x+\.\.\.', nid 200, type 'x+\.\.\.'\)/,
    ],
    // A value is quoted shorter still, cut by the same rule (not inside a character).
    [
      'blocks/patch',
      { id: 'Beer', type: 'TempSensorMock', data: { setting: LONG } },
      422,
      /got the string "x{40}\.\.\."/,
    ],
    // A route schema's refusal of a key it does not take: the path is the key.
    ['blocks/discover', { [LONG]: 1 }, 422, /invalid body: x+\.\.\.: unknown key/],
  ];
  for (const [route, body, status, names] of cases) {
    const what = `${route} ${JSON.stringify(body).replace(/x{20,}/g, 'x...')}`;
    const r = await a.post(route, body);
    t.equal(r.status, status, what);
    t.ok(r.raw.length < SMALL, `${what}: ${r.raw.length} characters`);
    t.notMatch(r.raw, ECHOED, `${what}: not echoed whole`);
    t.match(r.body?.message, names, `${what}: names the problem`);
  }
});

t.test('MQTT: the dropped patch is told the id is too long, in a short line', async (t) => {
  const lines: string[] = [];
  const log = createLogger('warn', {}, { write: (l: string) => lines.push(l) });
  const rt = await startApp({ topicRoot: 'svc', hardware: 'sim' }, { log });
  t.teardown(() => rt.close());
  t.equal((await rt.post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: {} })).status, 201);
  await untilSubscribed(rt.app);
  const pub = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => pub.end());
  await pub.publish(
    'svc/controller/blocks/patch',
    JSON.stringify({ serviceId: rt.app.config.serviceId, nid: 100, id: LONG, data: {} }),
  );
  await until(() => lines.some((l) => l.includes('mqtt blocks/patch dropped')), 'the drop to be logged');
  const line = lines.find((l) => l.includes('mqtt blocks/patch dropped'))!;
  const msg = (JSON.parse(line) as { msg: string }).msg;
  t.notMatch(msg, ECHOED, 'the id is not echoed whole');
  t.notMatch(msg, /\(\d+ characters\) \.\.\./, 'the message is short: the log did not have to cut it');
  t.match(msg, /id: must be a string of 1 to 200 characters.*; it has 5000/, 'the id is told its length');
  t.match(msg, "type: required: block 'Beer' is a TempSensorMock", 'the type named');
  t.notMatch(msg, /send \{/, 'no body to send with that id');
});
