// The new block types through REST: documented in the Swagger schema, bad input answered with
// a 422 naming the field, and a Sequence line that does not parse stored with its error.
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('Sequence, Variables, MotorValve and FastPwm over REST', async (t) => {
  const h = await startApp({}, { listen: false });
  t.teardown(() => h.close());
  const doc = await h.app.http.inject({ method: 'GET', url: `/${h.app.config.serviceId}/api/doc/json` });
  t.equal(doc.statusCode, 200);
  const text = doc.body;
  for (const type of ['Sequence', 'Variables', 'MotorValve', 'FastPwm'])
    t.ok(text.includes(`"title":"${type}"`), `${type} is documented`);
  t.ok(text.includes('transitionDurationPreset'), 'soft start fields are documented');

  const vars = await h.post('blocks/create', {
    id: 'vars',
    type: 'Variables',
    data: { variables: { 'no spaces allowed': { analog: 1 } } },
  });
  t.equal(vars.status, 422);
  t.match(JSON.stringify(vars.body), /no spaces allowed/);
  const twoKinds = await h.post('blocks/create', {
    id: 'vars',
    type: 'Variables',
    data: { variables: { x: { analog: 1, empty: false } } },
  });
  t.equal(twoKinds.status, 422);
  t.match(JSON.stringify(twoKinds.body), /exactly one of/);
  const ok = await h.post('blocks/create', {
    id: 'vars',
    type: 'Variables',
    data: { variables: { x: { temp: { __objtype: 'Quantity', value: 20, unit: 'degC' } } } },
  });
  t.equal(ok.status, 201);

  const seq = await h.post('blocks/create', {
    id: 'seq',
    type: 'Sequence',
    data: {
      variablesId: { __objtype: 'Link', id: 'vars' },
      instructions: ['WAIT_TEMP_ABOVE target=nothing, value=$x', 'SET_PWM target=x, setting=lots'],
    },
  });
  t.equal(seq.status, 201, 'a bad instruction is stored, not refused');
  t.equal(seq.body.data.status, 'ERROR');
  t.equal(seq.body.data.error, 'INVALID_ARGUMENT');
  t.equal(seq.body.data.errorInstruction, 1);
  t.match(seq.body.data.errorMessage, /setting: expected a number, got 'lots'/);
  t.same(seq.body.data.instructions, ['WAIT_TEMP_ABOVE target=nothing, value=$x', 'SET_PWM target=x, setting=lots']);
  const fixed = await h.post('blocks/patch', {
    id: 'seq',
    type: 'Sequence',
    data: { instructions: ['WAIT_TEMP_ABOVE target=nothing, value=$x'] },
  });
  t.equal(fixed.body.data.error, 'INVALID_TARGET', 'parsed; now the target is missing');
  const badSeq = await h.post('blocks/create', { id: 'seq2', type: 'Sequence', data: { instructions: 'RESTART' } });
  t.equal(badSeq.status, 422, 'instructions must be a list of lines');

  const valve = await h.post('blocks/create', { id: 'valve', type: 'MotorValve', data: { channel: 9 } });
  t.equal(valve.status, 422);
  t.match(JSON.stringify(valve.body), /channel/);
  const pwm = await h.post('blocks/create', { id: 'pwm', type: 'FastPwm', data: { frequency: 'PWM_FREQ_5HZ' } });
  t.equal(pwm.status, 422);
  t.match(JSON.stringify(pwm.body), /frequency/);
});
