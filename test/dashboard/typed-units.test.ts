// A number typed with a unit in a card's field (web/src/units.ts typedInUnit, the one parser the
// cards use): "1e3" was taken but "1e3 °C" refused as not a number; "18 ºC" with º (U+00BA, the
// masculine ordinal many keyboards give for a degree) was refused though it reads as 18 °C; and a
// PWM's "50 %" was refused in its % field. Pure, under Node.
import t from 'tap';
import { numberWithUnit, sameUnit, unitKind } from '../../src/codec/unit-conversion.js';
import { typedInUnit } from '../../web/src/units.js';

t.test('a number in E notation is read with its unit as without', async (t) => {
  t.same(typedInUnit('1e3', 'degC'), { value: 1000 }, 'bare');
  t.same(typedInUnit('1e1 °C', 'degC'), { value: 10 }, 'with the field unit');
  t.same(typedInUnit('1.5E1degC', 'degC'), { value: 15 }, 'no space, capital E');
  t.same(typedInUnit('2e-1 C', 'degC'), { value: 0.2 }, 'negative exponent');
  t.same(typedInUnit('-1,5e1 °C', 'degC'), { value: -15 }, 'comma and sign');
  t.same(
    typedInUnit('6.8e1 F', 'degC'),
    { problem: 'this field is in °C: 6.8e1 F is 20 °C' },
    'another unit is named, converted',
  );
  t.same(numberWithUnit('1e3 °C'), { number: '1e3', unit: '°C' }, 'the shared split takes the exponent');
  t.same(typedInUnit('1e °C', 'degC'), { problem: 'enter a number' }, 'an exponent without digits is no number');
});

t.test('º (U+00BA) and ˚ (U+02DA) are read as the degree sign', async (t) => {
  t.same(typedInUnit('18 ºC', 'degC'), { value: 18 }, 'masculine ordinal');
  t.same(typedInUnit('18˚C', 'degC'), { value: 18 }, 'ring above');
  t.same(typedInUnit('64,4 ºF', 'degF'), { value: 64.4 }, 'in a °F field');
  t.same(
    typedInUnit('64 ºF', 'degC'),
    { problem: 'this field is in °C: 64 ºF is 17.78 °C' },
    'another unit still said',
  );
  t.ok(sameUnit('ºC', 'degC'), 'the service reads it the same (one table)');
  t.equal(unitKind('ºF'), 'temp');
});

t.test('a percentage typed with % in a % field is that number; other units are named', async (t) => {
  t.same(typedInUnit('50 %', '%'), { value: 50 }, 'with a space');
  t.same(typedInUnit('12,5%', '%'), { value: 12.5 }, 'comma, no space');
  t.same(typedInUnit('50', '%'), { value: 50 }, 'bare');
  t.same(typedInUnit('50 °C', '%'), { problem: 'this field is in %, not °C' }, 'a temperature in a % field');
  t.same(typedInUnit('50 %', 'degC'), { problem: 'this field is in °C, not %' }, 'a percentage in a °C field');
  t.same(typedInUnit('50 %%', '%'), { problem: 'this field is in %, not %%' }, 'what is not its unit');
  t.same(typedInUnit('abc', '%'), { problem: 'enter a number' });
  t.same(typedInUnit('', '%'), { value: null }, 'empty');
});
