// After a restart, the embedded store rebuilds from its raw records what was only in memory: the
// coarse tiers' buckets in progress (those not yet written) and the fields' recent last-seen times.
import type { FieldIds } from './field-ids.js';
import type { RecordFiles } from './record-files.js';
import type { BucketAccumulator, Tier } from './tiers.js';

const HOUR = 3_600_000;

/** The raw points since the oldest bucket in progress (at least the last hour's) go into `acc`; returns how many. */
export function replayRaw(
  files: RecordFiles,
  fieldIds: FieldIds,
  tiers: Tier[],
  doneUntil: number[],
  acc: BucketAccumulator[],
): number {
  const raw = files.index[0]!;
  if (!raw.length) return 0;
  let points = 0;
  const lastRaw = Math.max(...raw.map((r) => r.t1));
  const from = Math.min(lastRaw - HOUR, ...doneUntil.slice(1));
  const coarse = tiers.slice(1);
  for (const s of files.series(0, from, lastRaw)) {
    let last = fieldIds.lastSeenOf(s.id) ?? 0;
    for (let i = 0; i < s.t.length; i++) {
      const t = s.t[i]!;
      if (t > last) last = t;
      for (const tier of coarse) if (t > doneUntil[tier.index]!) acc[tier.index]!.add(s.id, t, s.v[i]!);
    }
    points += s.t.length;
    fieldIds.seen(s.id, last);
  }
  return points;
}
