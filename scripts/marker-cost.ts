// `node dist/scripts/marker-cost.js`: what writing both type markers (__objtype and __bloxtype)
// costs in bytes, for a 100-block `blocks/all/read` answer and the state message carrying the
// same blocks, against writing one marker only. Raw and gzip-compressed sizes.
import { gzipSync } from 'node:zlib';
import { stateMessage } from '../src/mqtt/state.js';
import { ALL } from '../src/runtime/runtime.js';
import { benchRuntime, chains } from './bench/runtime.js';

const { runtime } = benchRuntime();
// 10 fermenter chains of 10 blocks: the mix of a real installation (the same as the runtime bench's).
chains(runtime, 10);
runtime.tick(1000);
const user = runtime
  .read(ALL)
  .json()
  .filter((b) => b.nid >= 100)
  .slice(0, 100);
const drop = (key: string) => JSON.stringify(user, (k, v) => (k === key ? undefined : v));
const state = (blocks: unknown) =>
  JSON.stringify(
    stateMessage('bench', '30s', {
      status: { online: true, serviceId: 'bench', version: 'bench' } as never,
      blocks: blocks as never,
      relations: runtime.relations(),
      claims: runtime.claims(),
    }),
  );
const size = (s: string) => ({ raw: Buffer.byteLength(s), gzip: gzipSync(s).length });
const both = JSON.stringify(user);
const one = drop('__objtype');
const rows = {
  'all/read, both markers': size(both),
  'all/read, __bloxtype only': size(one),
  'state, both markers': size(state(user)),
  'state, __bloxtype only': size(state(JSON.parse(one))),
};
console.log(`${user.length} blocks`);
for (const [name, s] of Object.entries(rows))
  console.log(`${name.padEnd(28)} ${String(s.raw).padStart(7)} B  gzip ${String(s.gzip).padStart(6)} B`);
const extra = (a: string, b: string) =>
  `+${(((rows as any)[a].raw / (rows as any)[b].raw - 1) * 100).toFixed(1)} % raw, +${(((rows as any)[a].gzip / (rows as any)[b].gzip - 1) * 100).toFixed(1)} % gzip`;
console.log(
  `all/read: ${extra('all/read, both markers', 'all/read, __bloxtype only')}; state: ${extra('state, both markers', 'state, __bloxtype only')}`,
);
