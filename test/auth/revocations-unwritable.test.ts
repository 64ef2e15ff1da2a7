// A revocations.json that could be read but not written (a full card, a file size limit, a data dir
// the user may not write) let a user change go ahead with a warning: users.json said the token was
// revoked, the record did not, and a users.json put back from before let the token in again. Such a
// change now fails whole: the CLI exits 1 naming the record and the reason and saying nothing was
// changed, and neither file is written. And `user list`, while the record cannot be read, does not
// show a token the record may have revoked as a token that works: its state is unknown.
// tags: slow (the built CLI)
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { addUser, runUser } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { needTools } from '../helpers/tools.js';
import { assertBuilt } from '../mqtt/fixtures.js';

assertBuilt();
needTools('bash');
t.setTimeout(limit(120_000));

const digest = (n: number) => createHash('sha256').update(`old token ${n}`).digest('hex');

/** alice and bob with API tokens, and a record (revocations of a user removed long ago) larger than 1 KiB. */
function setUp(t: Test) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-revocations-unwritable-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  addUser(dir, 'alice', 'a long password');
  addUser(dir, 'bob', 'bobs long password');
  const aliceToken = runUser(dir, ['token', 'alice']).stdout.trim();
  const bobToken = runUser(dir, ['token', 'bob']).stdout.trim();
  const record = path.join(dir, 'revocations.json');
  const old = { sessionGen: 1, tokens: Array.from({ length: 20 }, (_, i) => digest(i)) };
  writeFileSync(record, `${JSON.stringify({ version: 1, users: { carol: old } }, null, 2)}\n`, { mode: 0o600 });
  return { dir, record, usersFile: path.join(dir, 'users.json'), aliceToken, bobToken };
}

t.test('a change whose revocations cannot be written fails whole, naming the record', async (t) => {
  const s = setUp(t);
  const files = () => Object.fromEntries(readdirSync(s.dir).map((f) => [f, readFileSync(path.join(s.dir, f), 'utf8')]));
  const before = files();
  t.ok(before['revocations.json'].length > 1024, 'the record is larger than the limit the changes run under');
  for (const [args, input] of [
    [['token', 'bob', '--revoke'], ''],
    [['token', 'alice'], ''],
    [['passwd', 'alice'], 'a new long password\n'],
    [['remove', 'bob'], ''],
  ] as const) {
    const r = runUser(s.dir, [...args], input, 1024);
    t.equal(r.status, 1, `user ${args.join(' ')} fails`);
    t.match(r.stderr, `cannot write ${s.record} (EFBIG)`, 'naming the record and the reason');
    t.match(r.stderr, /nothing was changed/, 'saying nothing was changed');
    t.notMatch(r.stdout, /revoked|removed|changed|ebt_/, 'and claiming nothing on stdout');
    t.same(files(), before, 'users.json and the record are as they were, no temporary file left');
  }
  const ok = runUser(s.dir, ['token', 'bob', '--revoke']);
  t.equal(ok.status, 0, 'with the record writable, the revocation goes through');
  const users = JSON.parse(readFileSync(s.record, 'utf8')).users;
  t.same(users.bob.tokens, [createHash('sha256').update(s.bobToken).digest('hex')], "bob's token is recorded");
  t.same(users.carol.tokens, JSON.parse(before['revocations.json']).users.carol.tokens, 'and the older ones kept');
});

t.test('user list, while the record cannot be read, shows no token as working', async (t) => {
  const s = setUp(t);
  const putBack = readFileSync(s.usersFile, 'utf8');
  t.equal(runUser(s.dir, ['token', 'alice', '--revoke']).status, 0, "alice's token is revoked");
  writeFileSync(s.usersFile, putBack, { mode: 0o600 }); // a users.json from before it, put back
  renameSync(s.record, `${s.record}.aside`);
  mkdirSync(s.record); // EISDIR on read, as root too
  const list = runUser(s.dir, ['list']);
  t.equal(list.status, 0, 'the users are still listed');
  t.match(list.stderr, `${s.record} cannot be read (EISDIR)`, 'naming the record and the reason');
  t.notMatch(list.stdout, /has an API token/, 'no token is shown as one that works');
  t.match(list.stdout, /^alice {2}\(API token: state unknown[^\n]*revocations\.json/m, "alice's token: unknown");
  t.match(list.stdout, /^bob {2}\(API token: state unknown/m, "bob's too: the record may have revoked it");
  rmSync(s.record, { recursive: true });
  renameSync(`${s.record}.aside`, s.record);
  const again = runUser(s.dir, ['list']);
  t.match(again.stdout, /^alice\n/m, 'readable again: alice has no token (the record revoked it)');
  t.match(again.stdout, /^bob {2}\(has an API token\)$/m, 'and bob has his');
});
