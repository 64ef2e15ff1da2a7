// After a damaged start the service keeps what it had under names of its own: the database file as
// `edgeblocks.db.damaged-<time>`, the scheduled backups made before as `before-damage-<name>`
// (never pruned). A user who finds them, or looks for what the damage lost, reads about them where
// they look when something went wrong (Troubleshooting) and on the backups page.
import t from 'tap';
import { BEFORE_DAMAGE_PREFIX } from '../../src/service/backup-schedule.js';
import { readPage } from '../helpers/markdown.js';

t.test('Troubleshooting and the backups page name what a damaged start keeps, and how', async (t) => {
  const trouble = readPage('docs/troubleshooting.md').replace(/\s+/g, ' ');
  t.match(trouble, 'edgeblocks.db.damaged-', 'Troubleshooting names the damaged database kept aside');
  t.match(trouble, BEFORE_DAMAGE_PREFIX, `Troubleshooting names the ${BEFORE_DAMAGE_PREFIX} backups`);
  t.match(trouble, /blocks\/backup\/stored\/load/, 'and says how to load one');
  const data = readPage('docs/data.md').replace(/\s+/g, ' ');
  const backups = data.slice(data.indexOf('## Backups'), data.indexOf('## Logs'));
  t.match(backups, BEFORE_DAMAGE_PREFIX, `the backups section names the ${BEFORE_DAMAGE_PREFIX} backups`);
  t.match(backups, /not pruned/, 'and that they are not pruned');
});
