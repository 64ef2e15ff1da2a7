// One duration rule: history queries, the config's history retention and sequence instructions
// read the same texts as the same number of seconds (src/shared/duration.ts).
import t from 'tap';
import { parseDuration as sequenceDuration } from '../../src/blocks/shared/sequence-syntax.js';
import { loadConfig } from '../../src/config.js';
import { parseDuration as queryDuration } from '../../src/history/timeframe.js';
import { durationSeconds } from '../../src/shared/duration.js';

t.test('every reader of a duration gives the same seconds', async (t) => {
  for (const [text, seconds] of [
    ['90', 90],
    ['1d', 86400],
    ['2h30m', 9000],
    ['1h30m10s', 5410],
    ['300ms', 0.3],
    ['2w', 1209600],
    ['1.5h', 5400],
  ] as const) {
    t.equal(durationSeconds(text).seconds, seconds, `shared ${text}`);
    t.equal(queryDuration(text), seconds, `history query ${text}`);
    t.equal(sequenceDuration(text), seconds, `sequence ${text}`);
  }
  t.equal(loadConfig({ historyRetention: '2w' }, {}).historyRetention, '2w', 'the config takes what the history takes');
});

t.test('every reader refuses what is not a duration', async (t) => {
  for (const text of ['1x', 'h', '', '-5m', '30 years', '21y']) {
    t.ok(durationSeconds(text).error, `shared refuses ${JSON.stringify(text)}`);
    t.throws(() => queryDuration(text), `history refuses ${JSON.stringify(text)}`);
    t.equal(sequenceDuration(text), null, `sequence refuses ${JSON.stringify(text)}`);
  }
  t.match(durationSeconds('10000w').error, /longer than 20 years/);
  t.throws(() => loadConfig({ historyRetention: '1x' }, {}), /historyRetention/);
  t.throws(() => loadConfig({ historyRetention: '30m' }, {}), /at least 1h/);
  t.equal(sequenceDuration('1h 30m'), null, 'no space inside an instruction argument');
  t.equal(queryDuration('1h 30m'), 5400, 'a query may hold spaces');
});
