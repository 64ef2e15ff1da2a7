// The tags that pick the fast set (npm run test:fast): how a file is tagged, and that every tag
// in the suite is known and says why.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { passes, select, TAGS, tagsOf, testSources } from '../../scripts/test-tags.js';
import { ROOT } from '../helpers/root.js';

t.test('a tags line among the first comment lines tags the file', async (t) => {
  t.same(tagsOf('// What this tests.\n// tags: slow (a real Chromium)\nimport t from "tap";\n'), ['slow']);
  t.same(tagsOf('// tags: slow, browser (why)\n'), ['slow', 'browser'], 'several, with commas or spaces');
  t.same(tagsOf('// What this tests.\nimport t from "tap";\n// tags: slow (why)\n'), [], 'not after the first import');
  t.same(tagsOf('import t from "tap";\n'), [], 'none');
});

t.test('every tag in the suite is a known one and says why', async (t) => {
  const known = new Set<string>(TAGS);
  const sources = testSources(ROOT, ['test']);
  for (const f of sources) {
    const source = readFileSync(path.join(ROOT, f), 'utf8');
    const tags = tagsOf(source);
    if (!tags.length) continue;
    t.same(
      tags.filter((x) => !known.has(x)),
      [],
      `${f}: known tags only`,
    );
    t.match(source, /^\/\/ tags: [^(\n]*\([^)\n]+\)/m, `${f}: the tags line says why, in parentheses`);
  }
  const fast = select(ROOT, sources, 'fast');
  const slow = select(ROOT, sources, 'slow');
  t.ok(slow.length > 0 && fast.length > slow.length, `${fast.length} fast files, ${slow.length} slow`);
  t.same([...fast, ...slow].sort(), sources, 'the fast and the slow set together are every test file, once');
});

t.test('a run is two passes: the pool side by side, then the files tagged alone one at a time', async (t) => {
  const sources = testSources(ROOT, ['test']);
  const alone = sources.filter((f) => tagsOf(readFileSync(path.join(ROOT, f), 'utf8')).includes('alone'));
  const { pool, alone: last } = passes(ROOT, sources);
  t.ok(alone.length > 0, `${alone.length} files tagged alone`);
  t.same(last, alone, 'the second pass is the files tagged alone, in name order');
  t.same(
    pool.filter((f) => alone.includes(f)),
    [],
    'none of them in the pool',
  );
  t.same([...pool, ...last].sort(), sources, 'the two passes together are every test file, once');
});
