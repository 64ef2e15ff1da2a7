// The rule of the perfect-simulation bound (scripts/bench-autotune-choice.ts) that docs/autotune.md
// reports: most good runs, then soonest; the quick start's gains stay unless another set is clearly better.
import t from 'tap';
import { CHOICES, choose } from '../../scripts/bench-autotune-choice.js';

const s = (good: number, meanHours: number) => ({ good, meanHours });

t.test('the quick start stays against a set with as many good runs that is only a little sooner', async (t) => {
  t.equal(choose({ 'quick start': s(4, 3.0), 'no td': s(4, 2.9), 'no cooler td': s(3, 1.0) }), 'quick start');
});

t.test('a set with more good runs replaces the quick start, however slow', async (t) => {
  t.equal(choose({ 'quick start': s(3, 1.5), 'cooler td 10 min': s(4, 8.9) }), 'cooler td 10 min');
});

t.test('a set with as many good runs replaces it when at most three quarters of its time', async (t) => {
  t.equal(choose({ 'quick start': s(4, 2.0), 'no td': s(4, 1.5), 'no cooler td': s(4, 1.6) }), 'no td');
  t.equal(choose({ 'quick start': s(4, 2.0), 'no td': s(4, 1.51) }), 'quick start');
});

t.test('among the others, the most good runs win before the soonest', async (t) => {
  t.equal(choose({ 'quick start': s(0, 24), 'no td': s(2, 1.0), 'no cooler td': s(3, 5.0) }), 'no cooler td');
});

t.test('the sets are the quick start and six around it, each a heat and a cool side', async (t) => {
  t.equal(Object.keys(CHOICES).length, 7);
  t.ok(CHOICES['quick start']);
  for (const [name, g] of Object.entries(CHOICES)) {
    t.ok(g.heat.kp > 0 && g.cool.kp < 0, `${name}: heat kp positive, cool kp negative`);
  }
});
