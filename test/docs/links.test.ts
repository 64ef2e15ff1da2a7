// The pages link to each other and to headings: every relative link and #anchor in README.md and
// docs/*.md resolves (GitHub's heading slugs), and every shell block says where it runs.
import { existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/cli.js';
import { anchors, links, markdownPages, readPage, shellBlocks, slug } from '../helpers/markdown.js';

t.test("GitHub's heading slugs", async (t) => {
  t.equal(
    slug('2. Enabling the interfaces (`/boot/firmware/config.txt`)'),
    '2-enabling-the-interfaces-bootfirmwareconfigtxt',
  );
  t.equal(slug('Disk full (507)'), 'disk-full-507');
  t.equal(
    slug('DS2482 I2C-to-1-Wire bridge (recommended for more than a couple of sensors)'),
    'ds2482-i2c-to-1-wire-bridge-recommended-for-more-than-a-couple-of-sensors',
  );
  t.equal(slug('Sequences, variables, valves, fast PWM'), 'sequences-variables-valves-fast-pwm');
  t.equal(slug('`gpio`'), 'gpio');
  t.same([...anchors('# A\n## Tips\n```\n# not a heading\n```\n## Tips\n')], ['a', 'tips', 'tips-1']);
});

t.test('every relative link and anchor resolves', async (t) => {
  const pages = markdownPages();
  t.ok(pages.length >= 15, `README and the docs pages (${pages.length})`);
  let checked = 0;
  for (const page of pages) {
    for (const { target } of links(readPage(page))) {
      if (/^[a-z][\w+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const resolved = file ? path.normalize(path.join(path.dirname(page), decodeURIComponent(file))) : page;
      checked++;
      if (!existsSync(path.join(ROOT, resolved))) {
        t.fail(`${page}: link to ${target}: no file ${resolved}`);
        continue;
      }
      if (anchor !== undefined) {
        t.ok(resolved.endsWith('.md'), `${page}: #${anchor} points into a Markdown page`);
        if (resolved.endsWith('.md'))
          t.ok(
            anchors(readPage(resolved)).has(anchor.toLowerCase()),
            `${page}: ${target}: a heading with the anchor #${anchor} in ${resolved}`,
          );
      }
    }
  }
  t.ok(checked >= 50, `links checked (${checked})`);
});

t.test('every shell block says where it runs', async (t) => {
  for (const page of markdownPages()) {
    for (const block of shellBlocks(page)) {
      const where = `${page}:${block.line}`;
      t.ok(
        block.run && ['demo', 'dev', 'elsewhere'].includes(block.run),
        `${where}: <!-- run: demo|dev|elsewhere --> before the block (has ${block.run})`,
      );
      if (block.run === 'elsewhere')
        t.match(block.code.split('\n')[0], /^# on /, `${where}: the first line says where it runs ("# on the Pi")`);
    }
  }
});
