// History field names as the graph shows them (web/src/graph-fields.ts): the controller named
// unless it is this one, units in words (plain humidity and pressure too), this controller's
// setpoints paired with their values by default, one y scale per kind of unit.
import t from 'tap';
import { filledFrom } from '../../web/src/graph-data.js';
import {
  defaultFields,
  displayUnit,
  drawnIn,
  earlierNames,
  fieldParts,
  fieldWords,
  groupFields,
  legendLabel,
  scaleOf,
  axisLabel,
  sparkField,
} from '../../web/src/graph-fields.js';

const ALL = [
  'edge-one/Beer Setpoint/setting[degC]',
  'edge-one/Beer Setpoint/value[degC]',
  'edge-one/Heat PWM/value',
  'edge-one/BME280 0x76/humidity',
  'edge-one/BME280 0x76/pressure',
  'edge-one/Keg/value',
  'edge-two/Beer Setpoint/setting[degC]',
  'edge-two/Beer Setpoint/value[degC]',
  'edge-two/Fridge Sensor/value[degC]',
];

t.test('a field splits into controller, block, name and unit', async (t) => {
  t.same(fieldParts('edge-one/Beer Setpoint/setting[degC]'), {
    field: 'edge-one/Beer Setpoint/setting[degC]',
    controller: 'edge-one',
    block: 'Beer Setpoint',
    name: 'setting',
    unit: 'degC',
  });
  t.equal(fieldParts('edge-one/Heat PWM/value').unit, null);
});

t.test('labels: units in words, the controller named unless it is this one', async (t) => {
  t.equal(fieldWords('edge-one/Beer Setpoint/setting[degC]'), 'Setting (°C)');
  t.equal(fieldWords('edge-one/BME280 0x76/humidity'), 'Humidity (%RH)');
  t.equal(fieldWords('edge-one/BME280 0x76/pressure'), 'Pressure (hPa)');
  t.equal(
    fieldWords('edge-one/Keg/value', (p) => (p.block === 'Keg' ? 'bar' : null)),
    'Value (bar)',
  );
  t.equal(legendLabel('edge-one/Beer Setpoint/value[degC]', 'edge-one'), 'Beer Setpoint · Value (°C)');
  t.equal(legendLabel('edge-two/Beer Setpoint/value[degC]', 'edge-one'), 'edge-two · Beer Setpoint · Value (°C)');
});

t.test('by default: this controller’s setpoints with their values, never another’s', async (t) => {
  t.same(defaultFields(ALL, 'edge-one'), [
    'edge-one/Beer Setpoint/setting[degC]',
    'edge-one/Beer Setpoint/value[degC]',
  ]);
  t.same(defaultFields(ALL, 'edge-two'), [
    'edge-two/Beer Setpoint/setting[degC]',
    'edge-two/Beer Setpoint/value[degC]',
    'edge-two/Fridge Sensor/value[degC]',
  ]);
  t.same(
    defaultFields(ALL, 'edge-one', ['edge-two/Fridge Sensor/value[degC]', 'gone/x/y']),
    ['edge-two/Fridge Sensor/value[degC]'],
    'a saved choice wins, without fields the history no longer has',
  );
  const history = [
    'edge-one/Beer Setpoint/setting[degC]',
    'edge-one/Beer Setpoint/value[degC]',
    'edge-one/Fridge Sensor/value[degC]',
    'edge-one/Fridge/Air/value[degC]',
    'edge-one/Gone Sensor/value[degC]',
  ];
  t.same(
    defaultFields(history, 'edge-one', [], 'degC', new Set(['Beer Setpoint', 'Fridge/Air'])),
    ['edge-one/Beer Setpoint/setting[degC]', 'edge-one/Beer Setpoint/value[degC]', 'edge-one/Fridge/Air/value[degC]'],
    'the blocks there are: not the names history keeps of renamed and deleted ones',
  );
  t.same(
    defaultFields(history, 'edge-one', ['edge-one/Gone Sensor/value[degC]'], 'degC', new Set(['Beer Setpoint'])),
    ['edge-one/Gone Sensor/value[degC]'],
    'a saved choice of a gone block is kept',
  );
});

t.test('after a change to °F: the fields recorded in °F, not the °C ones that stopped at the change', async (t) => {
  const all = [
    'edge-one/Beer Setpoint/setting[degC]',
    'edge-one/Beer Setpoint/value[degC]',
    'edge-one/Beer Sensor/value[degC]',
    'edge-one/Heat PID/error[delta_degC]',
    'edge-one/Beer Setpoint/setting[degF]',
    'edge-one/Beer Setpoint/value[degF]',
    'edge-one/Beer Sensor/value[degF]',
    'edge-one/Heat PID/error[delta_degF]',
    'edge-one/Old Sensor/value[degC]',
    'edge-two/Beer Setpoint/setting[degC]',
  ];
  t.same(defaultFields(all, 'edge-one', [], 'degF'), [
    'edge-one/Beer Setpoint/setting[degF]',
    'edge-one/Beer Setpoint/value[degF]',
    'edge-one/Beer Sensor/value[degF]',
    'edge-one/Old Sensor/value[degC]',
  ]);
  t.same(
    defaultFields(
      all,
      'edge-one',
      [
        'edge-one/Beer Sensor/value[degC]',
        'edge-one/Beer Sensor/value[degF]',
        'edge-one/Heat PID/error[delta_degC]',
        'edge-one/Old Sensor/value[degC]',
        'edge-two/Beer Setpoint/setting[degC]',
      ],
      'degF',
    ),
    [
      'edge-one/Beer Sensor/value[degF]',
      'edge-one/Heat PID/error[delta_degF]',
      'edge-one/Old Sensor/value[degC]',
      'edge-two/Beer Setpoint/setting[degC]',
    ],
    "a saved field goes on in the new unit where the history has it; another controller's is its own",
  );
  t.same(defaultFields(all, 'edge-one', [], 'degC').slice(0, 3), [
    'edge-one/Beer Setpoint/setting[degC]',
    'edge-one/Beer Setpoint/value[degC]',
    'edge-one/Beer Sensor/value[degC]',
  ]);
});

t.test('grouped by controller (this one first), then by block', async (t) => {
  const groups = groupFields(ALL, 'edge-two');
  t.same(
    groups.map(([c]) => c),
    ['edge-two', 'edge-one'],
  );
  t.same(
    groups[1]![1].map(([b]) => b),
    ['Beer Setpoint', 'Heat PWM', 'BME280 0x76', 'Keg'],
  );
});

t.test('scales: temperatures, %/states, and every other unit on its own', async (t) => {
  t.equal(scaleOf('edge-one/Beer Setpoint/value[degC]'), 'temp');
  t.equal(scaleOf('edge-one/Heat PWM/value'), 'pct');
  t.equal(scaleOf('edge-one/BME280 0x76/humidity'), 'pct');
  t.equal(scaleOf('edge-one/BME280 0x76/pressure'), 'unit:hPa');
  t.equal(axisLabel(scaleOf('edge-one/BME280 0x76/pressure')), 'hPa', 'its axis is labelled with its unit');
  t.equal(
    scaleOf('edge-one/Keg/value', () => 'bar'),
    'unit:bar',
  );
  t.equal(axisLabel('temp'), 'temperature');
  t.equal(axisLabel('pct'), '% / state');
  // Another publisher's field whose unit is named like a scale of the graph: on an axis of its own,
  // not silently on the temperatures' or the percentages'.
  t.not(scaleOf('edge-two/Tank/level[temp]'), 'temp', 'a unit named "temp" is no temperature');
  t.not(scaleOf('edge-two/Tank/level[pct]'), 'pct', 'a unit named "pct" is not the % axis');
  t.equal(axisLabel(scaleOf('edge-two/Tank/level[temp]')), 'temp');
});

// A PID's error (Δ°C) shared the temperature axis: a 2 degree error was drawn at 2 °C beside a 20 °C beer.
t.test('a temperature difference has an axis of its own, in the unit it is drawn in', async (t) => {
  const error = 'edge-one/Heat PID/error[delta_degC]';
  t.not(scaleOf(error), scaleOf('edge-one/Beer Setpoint/value[degC]'), 'not on the temperature axis');
  t.equal(axisLabel(scaleOf(error)), 'temperature difference (Δ°C)');
  t.equal(axisLabel(scaleOf(error, undefined, 'degF')), 'temperature difference (Δ°F)', 'drawn in °F: Δ°F');
  t.equal(
    scaleOf('edge-one/Cool PID/error[delta_degF]', undefined, 'degF'),
    scaleOf(error, undefined, 'degF'),
    'differences recorded in either unit share the one axis of the unit shown',
  );
});

// The overview's sparkline asked for the first `value[` field of the block in the last hour: after
// a change to °F that was the °C one (it sorts first), so for an hour each card drew the curve that
// stopped at the change, its label in °C numbers, under a headline in °F.
t.test('a sparkline draws the value in the unit recorded now', async (t) => {
  const all = [
    'edge-one/Beer Sensor/value[degC]',
    'edge-one/Beer Sensor/value[degF]',
    'edge-one/Beer Sensor/value[degF]/x',
    'edge-one/Beer/value[degC]/value[degC]',
    'edge-one/Beer/value[degF]',
    'edge-one/Heat PWM/value',
    'edge-one/Volts/value[V]',
    'edge-two/Beer Sensor/value[degF]',
  ];
  t.equal(sparkField(all, 'edge-one', 'Beer Sensor', 'degF'), 'edge-one/Beer Sensor/value[degF]');
  t.equal(sparkField(all, 'edge-one', 'Beer Sensor', 'degC'), 'edge-one/Beer Sensor/value[degC]');
  t.equal(
    sparkField(all, 'edge-one', 'Beer', 'degC'),
    'edge-one/Beer/value[degF]',
    "another block's field (its id holds a slash) is not this block's; the one there is, in the other unit, is",
  );
  t.equal(sparkField(all, 'edge-one', 'Volts', 'degF'), 'edge-one/Volts/value[V]', 'other units as they are');
  t.equal(sparkField(all, 'edge-two', 'Beer Sensor', 'degC'), 'edge-two/Beer Sensor/value[degF]');
  t.equal(sparkField(all, 'edge-one', 'Gone', 'degC'), undefined);
});

t.test("a temperature's name before a unit switch, and its points drawn in the new unit's line", async (t) => {
  const fields = [
    'edge-one/Beer/value[degF]',
    'edge-one/PID/error[delta_degF]',
    'edge-one/PID/p',
    'other/Beer/value[degF]',
  ];
  const earlier = earlierNames(fields, 'edge-one', 'degF');
  t.same(
    [...earlier],
    [
      ['edge-one/Beer/value[degF]', 'edge-one/Beer/value[degC]'],
      ['edge-one/PID/error[delta_degF]', 'edge-one/PID/error[delta_degC]'],
    ],
    "this controller's temperatures only (another controller keeps its own unit)",
  );
  t.same(
    [...earlierNames(['edge-one/Beer/value[degC]'], 'edge-one', 'degF')],
    [],
    'a field in the other unit has none',
  );
  t.same([...earlierNames(fields, 'edge-one', undefined)], [], 'nor before the unit is known');
  // A block whose name holds a unit: only the last segment names the field's unit.
  t.same(
    [...earlierNames(['edge-one/Probe [degC]/value[degF]'], 'edge-one', 'degF')],
    [['edge-one/Probe [degC]/value[degF]', 'edge-one/Probe [degC]/value[degC]']],
  );

  const asked = ['edge-one/Beer/value[degF]', 'edge-one/Beer/value[degC]'];
  const cols = filledFrom(
    ['edge-one/Beer/value[degF]'],
    asked,
    [
      [10, 20, 30, 40],
      [null, null, 68, 69],
      [20, 20.5, null, null],
    ],
    new Map([[asked[0]!, asked[1]!]]),
    (v) => (v * 9) / 5 + 32,
  );
  t.same(cols, [
    [10, 20, 30, 40],
    [68, 68.9, 68, 69],
  ]);
});

t.test(
  'temperatures are drawn in the display unit: one recorded in the other is converted, and its legend says so',
  async (t) => {
    t.equal(drawnIn('edge-one/Beer Sensor/value[degC]', 'degF'), 'degF');
    t.equal(drawnIn('edge-two/Kettle/setting[degF]', 'degC'), 'degC', "another controller's too");
    t.equal(drawnIn('edge-one/Heat PID/error[delta_degC]', 'degF'), 'delta_degF', 'a difference stays one');
    t.equal(drawnIn('edge-one/Beer Sensor/value[degF]', 'degF'), null, 'one in the display unit as recorded');
    t.equal(drawnIn('edge-one/BME280 0x76/humidity', 'degF'), null, 'no temperature as recorded');
    t.equal(drawnIn('edge-one/Beer Sensor/value[degC]', undefined), null);
    t.equal(displayUnit(['edge-one/Heat PID/error[delta_degF]', 'edge-one/Beer/value[degC]'], undefined), 'degF');
    t.equal(displayUnit(['edge-one/Beer/value[degC]'], 'degF'), 'degF', 'the unit recorded now first');
    t.equal(
      legendLabel('edge-one/Beer Sensor/value[degC]', 'edge-one', undefined, 'degF'),
      'Beer Sensor · Value (°F, recorded in °C)',
    );
    t.equal(legendLabel('edge-one/Beer Sensor/value[degC]', 'edge-one', undefined, 'degC'), 'Beer Sensor · Value (°C)');
  },
);
