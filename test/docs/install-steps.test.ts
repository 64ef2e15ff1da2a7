// Issue 50.4: the install steps in the docs can be followed as written: a `git clone` names a
// git URL (no `<placeholder>`), and no block builds twice (`npm ci` runs the `prepare` script,
// which already builds).
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { markdownPages, shellBlocks } from '../helpers/markdown.js';

const blocks = markdownPages().flatMap((page) => shellBlocks(page));
const prepare: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.prepare;

t.test('every git clone names a URL', async (t) => {
  const clones = blocks.flatMap((b) =>
    b.code
      .split('\n')
      .filter((l) => /\bgit clone\b/.test(l))
      .map((l) => ({ where: `${b.page}:${b.line}`, line: l })),
  );
  t.ok(
    clones.some((c) => c.where.startsWith('docs/raspberry-pi.md')),
    'the Pi page clones',
  );
  for (const { where, line } of clones) {
    const source = /\bgit clone\s+(\S+)/.exec(line)?.[1] ?? '';
    t.notMatch(line, /</, `${where}: no placeholder in angle brackets`);
    t.match(source, /^(https?:\/\/|ssh:\/\/|git@|[\w.-]+@[\w.-]+:)/, `${where}: ${source} is a git URL`);
  }
});

t.test('npm ci is not followed by a second build', async (t) => {
  t.match(prepare, 'npm run build', "npm ci builds (package.json's prepare)");
  const withCi = blocks.filter((b) => /\bnpm ci\b/.test(b.code));
  t.ok(withCi.length >= 3, 'blocks that run npm ci');
  for (const b of withCi)
    t.notMatch(
      b.code,
      /npm ci\b[^\n]*(\n[^\n]*)*npm run build\b/,
      `${b.page}:${b.line}: no npm run build after npm ci`,
    );
});
