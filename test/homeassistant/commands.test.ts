// Home Assistant commands with bad payloads are refused with a reason that names what was sent,
// as the block codec names a bad field value (codec/decode.ts describe): a bare 1e999 is JSON for
// a number too large for a double (Infinity), and the reason said "got null" (JSON.stringify
// writes Infinity as null), as if the payload had been empty.
import t from 'tap';
import { announce, commandPatch } from '../../src/homeassistant/entities.js';
import { parseJson } from '../../src/shared/json.js';
import { SetpointSensorPair } from '../../src/blocks/setpoint-sensor-pair.js';
import { DigitalActuator } from '../../src/blocks/digital-actuator.js';

const setting = SetpointSensorPair.homeAssistant!.find((s) => s.key === 'setting')!;
const state = DigitalActuator.homeAssistant!.find((s) => s.key === 'state')!;
const degF = announce(setting, { temperature: 'degF' });

/** The payload as the service reads it from the bus (mqtt/index.ts: empty is null, else JSON). */
const read = (text: string) => {
  if (text === '') return null;
  const parsed = parseJson(Buffer.from(text), { maxBytes: 1024, what: 'the payload' });
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
};

t.test('bad number commands name what was sent', async (t) => {
  for (const [text, named] of [
    ['1e999', 'a number too large for JSON to hold'],
    ['-1e999', 'a number too large for JSON to hold'],
    ['"1e999"', 'the string "1e999"'],
    ['', 'null'],
    ['"warm"', 'the string "warm"'],
    ['[20]', 'an array'],
  ] as const) {
    const patch = commandPatch(setting, degF, read(text));
    t.ok('error' in patch, `${JSON.stringify(text)} is refused`);
    if ('error' in patch) t.match(patch.error, `got ${named}`, `${JSON.stringify(text)}: ${patch.error}`);
  }
  t.match(commandPatch(setting, degF, read('303')), { error: '303 is outside -40..302 °F' });
  t.same(commandPatch(setting, degF, read('302')), {
    data: { storedSetting: { __objtype: 'Quantity', unit: 'degF', value: 302 } },
  });
});

t.test('bad switch commands name what was sent', async (t) => {
  t.match(commandPatch(state, {}, read('1e999')), {
    error: 'a switch command must be true or false, got a number too large for JSON to hold',
  });
  t.same(commandPatch(state, {}, read('true')), { data: { storedState: 'STATE_ACTIVE' } });
});
