// Block names a user may give, for the property tests of "names are user text" (DESIGN §11):
// the hard cases every run checks, plus random names from a seeded generator (the seed is in the
// test's name; EDGEBLOCKS_TEST_NAMES_SEED repeats a run). Every name is one the API accepts: 1 to 200
// UTF-16 units, no control character, no leading or trailing space (src/runtime/body.ts validId).
import { validId } from '../../src/runtime/body.js';
import { seeded } from '../../drivers/sim/seeded.js';

/** The cases a name rule most often gets wrong: each is in every run. */
export const HARD_NAMES: readonly string[] = [
  'Brew "Kettle"',
  "Brewer's 'Best'",
  'back\\slash',
  'C:\\temp\\"x"\\',
  'Fermenter/Beer',
  'a/b/c',
  '../..',
  '.hidden',
  'dots...',
  'v1.2.3',
  '100%',
  '%2F%25%',
  'a,b=c d',
  'Sensor #1',
  'a+b',
  '$name',
  '{"json": 1}',
  '<script>alert(1)</script>',
  'Ünïcödé Sensör',
  'e\u0301 decomposed',
  '\u00e9 composed',
  '温度计',
  'مستشعر الحرارة',
  '🍺',
  '🍺 Beer 🍷',
  '👨‍👩‍👧 family',
  'two  spaces',
  'nb\u00a0space',
  'Kettle',
  'kettle',
  'KETTLE',
  'x'.repeat(200),
  `${'🍺'.repeat(99)}x`,
];

// Each class is a list of characters (code points); a name draws a class, then a character.
const CLASSES: readonly string[][] = [
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'],
  [...'0123456789'],
  [' '],
  [...`"'\\/.%,=#+*?:;&|()[]{}<>!@$^~\``],
  [...'äöüßéèçñøåÄÖÜ'],
  ['\u0301', '\u0308'],
  [...'温度计発酵槽麦芽'],
  [...'🍺🍷🌡️🔥❄️⚗️'],
  ['\u00a0', '\u200b', '\u2028'],
];

export function randomName(rand: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  // Mostly short names, some long, a few at the limit.
  const r = rand();
  const target = r < 0.6 ? 1 + Math.floor(rand() * 20) : r < 0.9 ? 20 + Math.floor(rand() * 100) : 200;
  let name = '';
  for (;;) {
    const c = pick(pick(CLASSES));
    if (name.length + c.length > target) break;
    name += c;
  }
  name = name.trim();
  return validId(name) ? name : randomName(rand);
}

/** `count` distinct names, the hard ones first. */
export function names(seed: number, count: number): string[] {
  const rand = seeded(seed);
  const out = new Set(HARD_NAMES);
  while (out.size < count) out.add(randomName(rand));
  for (const n of out)
    if (!validId(n)) throw new Error(`the generator made a name the API refuses: ${JSON.stringify(n)}`);
  return [...out];
}

/** The seed of this run: EDGEBLOCKS_TEST_NAMES_SEED, or a new one. */
export function namesSeed(): number {
  const given = process.env.EDGEBLOCKS_TEST_NAMES_SEED;
  return given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}

/**
 * A name for a test message: JSON with everything outside printable ASCII as \\u escapes (tap's
 * TAP parser loses count on a test point whose name holds a lone combining mark).
 */
export function show(name: string): string {
  return JSON.stringify(name).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
