// A users file written by a later release (one that went forward, then back): its version is one
// this release cannot read. It was refused as "not a valid users file ... fix or remove it", as if
// damaged, and removing it loses every user and token the later release still reads. The
// refusal now says which release wrote it and what to do, and the file is left as it is.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { UsersFile } from '../../src/auth/users.js';
import { UsersFileError } from '../../src/auth/users-format.js';

t.test('a users file of a later version is named so, and kept', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-users-version-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const users = new UsersFile(dir).load();
  await users.add('alice', 'a long password');
  const later = JSON.parse(readFileSync(users.file, 'utf8'));
  later.version = 2;
  later.users.alice.passkeys = [];
  const text = JSON.stringify(later);
  writeFileSync(users.file, text);
  let error: unknown;
  try {
    new UsersFile(dir).load();
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof UsersFileError);
  const message = (error as Error).message;
  t.match(message, /written by a later release \(users file version 2; this release reads version 1\)/);
  t.notMatch(message, /remove it/, 'removing it would lose the users the later release reads');
  const running = new UsersFile(dir);
  t.ok(running.loadOrLock(), 'the service reads it as no users');
  await t.rejects(running.add('bob', 'another password'), UsersFileError);
  t.equal(readFileSync(users.file, 'utf8'), text, 'never rewritten');

  writeFileSync(users.file, JSON.stringify({ ...later, version: 'two' }));
  t.throws(() => new UsersFile(dir).load(), { message: /expected an object with "version": 1.*fix or remove it/ });
});
