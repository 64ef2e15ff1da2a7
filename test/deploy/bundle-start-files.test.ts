// What a start of the bundled service reads: app.cjs and the chunks it requires before anything
// runs. The chip emulators are loaded only in sim mode (each chip definition imports its
// emulator lazily), and the drivers they share with the service stay in one chunk: without
// that, every driver became a file of its own that each start read (20 files instead of 9).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/cli.js';

const dir = path.join(ROOT, 'dist/bundle');

/** The chunks loaded at start: app.cjs and, transitively, the chunks required at the top of each. */
function startFiles(): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (file: string) => {
    if (out.has(file)) return;
    const source = readFileSync(path.join(dir, file), 'utf8');
    out.set(file, source);
    for (const m of source.matchAll(/(?:const|let|var) [\w$]+\s*=\s*require\("\.\/([^"]+)"\)/g)) visit(m[1]!);
  };
  visit('app.cjs');
  return out;
}

t.test('a start reads few files, and no emulator', async (t) => {
  const files = startFiles();
  t.ok(files.size <= 10, `${files.size} files at start: ${[...files.keys()].join(', ')}`);
  for (const [file, source] of files) {
    t.notMatch(source, /class (Sim\w+|\w+Sim)\b/, `${file} holds no emulator class`);
    t.notMatch(file, /-sim-|^sim-/, `${file} is not an emulator's chunk`);
  }
});
