// Issue 50.5: the History and Fleet pages give one answer for several controllers sharing one
// VictoriaMetrics (`historyIngest: own` on each), and History's settings table has every
// history setting of the schema with its flag, variable and default.
import t from 'tap';
import { SETTINGS, DEFAULTS } from '../../src/config-schema.js';
import { prose, readPage } from '../helpers/markdown.js';

const history = readPage('docs/history.md');
const fleet = readPage('docs/fleet.md');

t.test("History's settings table has every history setting of the schema", async (t) => {
  const rows = history.split('\n').filter((l) => l.startsWith('| `history'));
  const settings = SETTINGS.filter(({ key }) => key.startsWith('history'));
  t.ok(settings.length >= 6, 'the history settings');
  for (const { key, schema } of settings) {
    const row = rows.find((r) => r.startsWith(`| \`${key}\` |`));
    t.ok(row, `a row for ${key}`);
    if (schema.flag) t.match(row, `\`${schema.flag}\``, `${key}: its flag`);
    t.match(row, `\`${schema.env}\``, `${key}: its variable`);
    const fallback = (DEFAULTS as Record<string, unknown>)[key];
    if (typeof fallback === 'string') t.match(row, `\`${fallback}\``, `${key}: its default`);
  }
});

t.test('several controllers, one database: the same answer on both pages', async (t) => {
  t.match(fleet, '"historyIngest": "own"', "Fleet's controller config sets historyIngest own");
  const shared = /Point every controller at the same broker and database([\s\S]*?)Writes are queued/.exec(history)?.[1];
  t.ok(shared, "History's paragraph on several controllers");
  t.match(shared, '--history-ingest own', 'History gives each controller --history-ingest own');
  t.match(shared, '](fleet.md)', 'and links the Fleet page');
  for (const [page, text] of [
    ['history.md', history],
    ['fleet.md', fleet],
  ] as const)
    t.notMatch(prose(text), /others? `--history off`/, `${page} does not turn history off on the other controllers`);
});
