// A users file with a flipped bit (the SD card) or a bad hand edit must not give anybody more than
// the file gave: a key the reader does not know was skipped as if absent, so a flip in the name of
// a viewer's "role" ("rolE") made the viewer an admin, and one in "sessionGen" undid the user's
// logouts; a password hash whose key was damaged to a few bytes, or none, let every password in.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { UsersFile } from '../../src/auth/users.js';
import { UsersFileError } from '../../src/auth/users-format.js';
import { startApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';

const PASSWORD = 'a long password';

async function usersDir(t: Test) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-flips-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const users = new UsersFile(dir).load();
  await users.add('alice', PASSWORD);
  await users.add('vic', PASSWORD, 'viewer');
  const token = users.createToken('vic');
  for (let i = 0; i < 3; i++) await users.endSessions('vic');
  return { dir, users, token, text: readFileSync(users.file) };
}

t.test('no flipped bit of the users file makes a viewer an admin or forgets that a user logged out', async (t) => {
  const { dir, users, text } = await usersDir(t);
  const vicHash = users.get('vic')!.hash;
  const wrong: string[] = [];
  let refused = 0;
  for (let at = 0; at < text.length; at++)
    for (let bit = 0; bit < 8; bit++) {
      const flipped = Buffer.from(text);
      flipped[at]! ^= 1 << bit;
      writeFileSync(users.file, flipped);
      let read: UsersFile;
      try {
        read = new UsersFile(dir).load();
      } catch (e) {
        if (!(e instanceof UsersFileError)) throw e;
        refused++;
        continue;
      }
      const where = JSON.stringify(flipped.subarray(Math.max(0, at - 12), at + 4).toString());
      const admins = read.names().filter((n) => read.roleOf(n) === 'admin');
      if (admins.length > 1) wrong.push(`${where}: admins ${admins.join(', ')}`);
      // The viewer's record, whatever its name now reads.
      const vic = read.names().find((n) => read.get(n)!.hash === vicHash);
      if (vic && !read.get(vic)!.sessionGen) wrong.push(`${where}: ${vic} never logged out`);
    }
  t.same(wrong, [], 'every flip is refused or gives nobody more');
  t.ok(refused > 0, `${refused} of ${text.length * 8} flips refused`);
});

t.test('a flip in the name of a field is refused with the name, also while the service runs', async (t) => {
  const { dir, token, text } = await usersDir(t);
  const damaged = text.toString().replace('"role"', '"rolE"');
  t.not(damaged, text.toString());
  writeFileSync(path.join(dir, 'users.json'), damaged);
  t.throws(() => new UsersFile(dir).load(), { message: /user "vic": unknown field "rolE"/ });

  writeFileSync(path.join(dir, 'users.json'), text);
  const rt = await startApp({ auth: 'true', hardware: 'sim' }, { dataDir: dir });
  t.teardown(() => rt.close());
  const create = (id: string) =>
    fetch(`${rt.base}/blocks/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, type: 'TempSensorMock', data: {} }),
    }).then((r) => r.status);
  t.equal(await create('Before'), 403, 'a viewer');
  writeFileSync(path.join(dir, 'users.json'), damaged);
  // What the service makes of vic once it has read the file again.
  const refresh = () =>
    fetch(`${rt.base.replace(/\/[^/]+$/, '')}/auth/refresh`, { headers: { authorization: `Bearer ${token}` } });
  await until(async () => {
    const res = await refresh();
    return res.status !== 200 || ((await res.json()) as { role?: string }).role !== 'viewer';
  }, 'the damaged file read');
  t.equal(await create('After'), 401, 'nobody gets in until the file is fixed');
  t.match((rt.app.status() as any).auth.usersFileError, /unknown field "rolE"/);
  t.notOk(rt.app.runtime.find('After'), 'no block was made');
});

t.test('a password hash damaged to a short key is refused, not a key every password matches', async (t) => {
  const { dir, text } = await usersDir(t);
  const hash = new UsersFile(dir).load().get('vic')!.hash;
  const [head, key] = [hash.slice(0, hash.lastIndexOf('$') + 1), hash.slice(hash.lastIndexOf('$') + 1)];
  for (const bad of ['x', '=', 'AA', 'AAAA', key.slice(0, -2), `${key.slice(0, 10)}!${key.slice(11)}`]) {
    writeFileSync(path.join(dir, 'users.json'), text.toString().replace(hash, head + bad));
    let read: UsersFile | null = null;
    try {
      read = new UsersFile(dir).load();
    } catch (e) {
      t.match((e as Error).message, /user "vic": the password hash is not an scrypt hash/, `key ${bad}`);
    }
    if (read) t.fail(`key ${bad} read; "any password" logs in as ${await read.checkPassword('vic', 'any password')}`);
  }
  // The salt too: one that decodes to nothing would make every user's hash the same function.
  const salt = hash.split('$')[4]!;
  writeFileSync(path.join(dir, 'users.json'), text.toString().replace(hash, hash.replace(salt, '-')));
  t.throws(() => new UsersFile(dir).load(), { message: /the password hash is not an scrypt hash/ });
});
