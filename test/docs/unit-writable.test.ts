// The Pi page says where the service may write under ProtectSystem=strict; the unit's
// StateDirectory= and CacheDirectory= are such places (/var/lib/NAME, /var/cache/NAME), so the
// page names each one the unit has.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { readPage } from '../helpers/markdown.js';

t.test('the Pi page names every writable directory of the unit', async (t) => {
  const unit = readFileSync(path.join(ROOT, 'systemd/edgeblocks.service'), 'utf8');
  const dirs = [
    ...[...unit.matchAll(/^StateDirectory=(\S+)/gm)].map((m) => `/var/lib/${m[1]}`),
    ...[...unit.matchAll(/^CacheDirectory=(\S+)/gm)].map((m) => `/var/cache/${m[1]}`),
  ];
  t.ok(dirs.length >= 2, `the unit's directories: ${dirs.join(', ')}`);
  const sentence = /Its writable places are ([^.]*)\./.exec(readPage('docs/raspberry-pi.md').replace(/\s+/g, ' '))?.[1];
  t.ok(sentence, 'the Pi page says where the service writes');
  for (const dir of dirs) t.match(sentence, `\`${dir}\``, `names ${dir}`);
});
