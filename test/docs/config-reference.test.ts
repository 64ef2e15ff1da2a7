// docs/configuration.md is generated from the config schema (scripts/config-reference.ts,
// `npm run docs:config`); the committed page must be what the schema gives today.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { CONFIG_PAGE, configReference } from '../../scripts/config-reference.js';
import { SETTINGS } from '../../src/config-schema.js';
import { ROOT } from '../helpers/cli.js';

t.test('docs/configuration.md is up to date with the schema', async (t) => {
  const committed = readFileSync(path.join(ROOT, CONFIG_PAGE), 'utf8');
  const generated = configReference();
  const firstDiff = [...generated.split('\n').keys()].find(
    (i) => generated.split('\n')[i] !== committed.split('\n')[i],
  );
  t.equal(
    committed,
    generated,
    firstDiff === undefined
      ? 'same text'
      : `line ${firstDiff + 1} differs: run npm run docs:config\n  page:   ${committed.split('\n')[firstDiff]}\n  schema: ${generated.split('\n')[firstDiff]}`,
  );
});

t.test('the page names every setting with its flag, variable and default', async (t) => {
  const page = configReference();
  for (const { key, schema } of SETTINGS) {
    const row = page.split('\n').find((l) => l.startsWith(key === 'config' ? '| (command line) |' : `| \`${key}\` |`));
    t.ok(row, `a row for ${key}`);
    if (schema.flag) {
      const shown = schema.type === 'boolean' ? `--[no-]${schema.flag.slice(2)}` : schema.flag;
      t.match(row, `\`${shown}\``, `${key}: its flag, a true/false one as the switch it is`);
    }
    if (schema.env) t.match(row, `\`${schema.env}\``, `${key}: its variable`);
    if (schema.default !== undefined && !(Array.isArray(schema.default) && schema.default.length === 0))
      t.match(row, JSON.stringify(schema.default), `${key}: its default`);
    if (schema.description) t.match(row, schema.description.replaceAll('|', '\\|'), `${key}: its description`);
  }
});
