// The first view's budget (issue 47.8): the JS and CSS a phone loads before the overview shows,
// gzipped, is at most 60 KB; the rest of the pages load on demand. The side-by-side paint time
// is measured by `npm run bench:web`, not here. Needs `npm run build:web`.
import { existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { FIRST_VIEW_BUDGET_KB, firstViewBytes } from '../../scripts/bench/first-view.js';
import { ROOT } from '../helpers/cli.js';

const WEB = path.join(ROOT, 'dist/web');
if (!existsSync(path.join(WEB, 'index.html')))
  throw new Error('dist/web is missing: run npm run build:web (npm ci does) before this test');

t.test('the first view is within its gzipped budget, and the other pages are not in it', async (t) => {
  const view = firstViewBytes(WEB);
  const kb = view.gzip / 1024;
  t.ok(
    kb <= FIRST_VIEW_BUDGET_KB,
    `first view ${kb.toFixed(1)} KB gzipped (${view.files.join(', ')}) <= ${FIRST_VIEW_BUDGET_KB} KB`,
  );
  t.ok(
    view.files.some((f) => f.endsWith('.css')) && view.files.some((f) => f.endsWith('.js')),
    'its JS and CSS are counted',
  );
  for (const page of ['Graphs', 'Editor', 'Hardware', 'Setup', 'Alerts'])
    t.notOk(
      view.files.some((f) => path.basename(f).startsWith(`${page}-`)),
      `${page} loads on demand, not with the first view`,
    );
});
