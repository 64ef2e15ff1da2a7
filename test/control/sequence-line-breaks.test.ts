// A Sequence's instructions are a list, one instruction per item; the dashboard edits them as the
// lines of a text area (web/src/field-kinds.ts: the items joined by line breaks, split on them
// again when saved), as the Brewblox UI does. An item sent through the API with a line break in
// it is shown there as two lines or more, so what runs must not be anything else: a script sent
// as one item (`["# Cold crash\nSET_SETPOINT ...\nWAIT_DURATION ..."]`) is not taken as one
// comment that runs nothing while the sequence reports no error. Such an item does not parse,
// and the sequence says so, as for any line that does not; one of comment lines only (a note
// written over several lines) is a comment, as it always was, so a stored sequence keeps running.
import t from 'tap';
import { parseInstruction } from '../../src/blocks/shared/sequence-syntax.js';
import { fromText, toText } from '../../web/src/field-kinds.js';
import { startApp } from '../helpers/app.js';

const SCRIPT = '# Cold crash\nSET_SETPOINT target=Beer Setpoint, setting=2C\nWAIT_DURATION duration=2d';

t.test('an instruction with a line break in it does not parse, naming where the break is', async (t) => {
  for (const brk of ['\n', '\r\n', '\r']) {
    const shown = JSON.stringify(brk);
    t.match(
      parseInstruction(`# a note${brk}RESTART`),
      { error: { pos: 8, message: /line break/ } },
      `a comment going on past ${shown}`,
    );
    t.match(
      parseInstruction(`WAIT_DURATION duration=1h${brk}RESTART`),
      { error: { pos: 25, message: /line break/ } },
      `an instruction going on past ${shown}`,
    );
    t.ok('instruction' in parseInstruction(`  WAIT_DURATION duration=1h${brk}`), `${shown} at an end is trimmed`);
    // A note over several lines, each a comment (stored so through the API before this check, or
    // sent by a script): shown as comments, it runs as one, as it did before.
    t.notOk(
      'error' in parseInstruction(`# a note${brk}# going on${brk}${brk}# and on`),
      `comments only, past ${shown}`,
    );
  }
  t.end();
});

t.test('a script sent as one item through REST is an error, not a comment that runs nothing', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const sensor = await post('blocks/create', {
    id: 'Beer Sensor',
    type: 'TempSensorExternal',
    data: { setting: 20, timeout: 0 },
  });
  t.equal(sensor.status, 201, sensor.raw);
  const setpoint = await post('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { sensorId: { __objtype: 'Link', id: 'Beer Sensor' }, storedSetting: 20, enabled: true },
  });
  t.equal(setpoint.status, 201, setpoint.raw);

  const created = await post('blocks/create', { id: 'Crash', type: 'Sequence', data: { instructions: [SCRIPT] } });
  t.equal(created.status, 201, created.raw);
  const data = created.body.data;
  // The dashboard shows this item as three lines, a setting of 2C among them.
  t.same(fromText('lines', 'instructions', toText('lines', data.instructions)), SCRIPT.split('\n'));
  t.equal(data.status, 'ERROR', 'the sequence does not report a script it never runs as done');
  t.equal(data.error, 'INVALID_ARGUMENT');
  t.equal(data.errorInstruction, 0);
  t.match(data.errorMessage, /^instruction 1: .*line break/);
  t.same(data.instructions, [SCRIPT], 'the item is kept as written, to be fixed');

  // Saved from the dashboard as shown: three instructions, which run.
  const saved = await post('blocks/patch', {
    id: 'Crash',
    type: 'Sequence',
    data: { instructions: fromText('lines', 'instructions', toText('lines', data.instructions)) },
  });
  t.equal(saved.status, 200, saved.raw);
  t.equal(saved.body.data.error, 'NONE', saved.body.data.errorMessage);
  t.equal(saved.body.data.status, 'WAITING');
  t.equal(saved.body.data.activeInstruction, 2);
  const read = await post('blocks/read', { id: 'Beer Setpoint' });
  t.equal(read.body.data.storedSetting.value, 2, 'the setpoint was set by the line the dashboard showed');
});
