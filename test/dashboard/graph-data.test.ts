// The graph's data shaping (web/src/graph-data.ts): ranges answers aligned on one time column,
// live appends merged, the window trimmed, axes chosen by unit.
import t from 'tap';
import { align, dropBefore, isTemperature, type Range } from '../../web/src/graph-data.js';

const r = (name: string, values: Array<[number, string]>): Range => ({ metric: { __name__: name }, values });

t.test('fields with different timestamps share one x column, null where a field has no point', async (t) => {
  const cols = align(
    ['a', 'b'],
    [
      r('b', [
        [20, '2'],
        [10, '1'],
      ]),
      r('a', [
        [10, '5.5'],
        [30, 'NaN'],
      ]),
    ],
  );
  t.same(cols, [
    [10, 20, 30],
    [5.5, null, null],
    [1, 2, null],
  ]);
});

t.test('a field missing from the answer stays null; unknown fields are ignored', async (t) => {
  t.same(align(['a', 'b'], [r('a', [[1, '1']]), r('zzz', [[1, '9']])]), [[1], [1], [null]]);
});

t.test('live appends merge into the previous columns, newer values win', async (t) => {
  const first = align(
    ['a'],
    [
      r('a', [
        [10, '1'],
        [20, '2'],
      ]),
    ],
  );
  const next = align(
    ['a'],
    [
      r('a', [
        [20, '3'],
        [30, '4'],
      ]),
    ],
    first,
  );
  t.same(next, [
    [10, 20, 30],
    [1, 3, 4],
  ]);
});

t.test('dropBefore trims rows older than the window', async (t) => {
  t.same(
    dropBefore(
      [
        [10, 20, 30],
        [1, 2, 3],
      ],
      15,
    ),
    [
      [20, 30],
      [2, 3],
    ],
  );
  t.same(
    dropBefore(
      [
        [10, 20],
        [1, 2],
      ],
      5,
    ),
    [
      [10, 20],
      [1, 2],
    ],
  );
});

t.test('temperatures (absolute and delta) go on the left axis, the rest on the right', async (t) => {
  t.ok(isTemperature('svc/Beer/value[degC]'));
  t.ok(isTemperature('svc/Beer/value[degF]'));
  t.ok(isTemperature('svc/PID/error[delta_degC]'));
  t.notOk(isTemperature('svc/Heat PWM/value'));
  t.notOk(isTemperature('svc/Heater/state'));
});
