// Scheduled backups: croner runs a cron expression (hourly by default, local time); each run saves
// `auto-<UTC timestamp>` and prunes the scheduled backups beyond the configured count.
// Backups saved by hand are never pruned.
import { Cron } from 'croner';
import type { Logger } from '../log.js';
import { type BackupFiles, DamagedBackupError } from '../store/backup-files.js';

export const AUTO_PREFIX = 'auto-';
const SCHEDULED_NAME = /^auto-(\d{8}T\d{6}Z)(?:-(\d+))?$/;

/** A scheduled backup's place in the save order: the UTC time in its name, then its number in that second (none: 1). */
function saveOrder(name: string): { stamp: string; n: number } | null {
  const m = SCHEDULED_NAME.exec(name);
  return m ? { stamp: m[1]!, n: m[2] === undefined ? 1 : Number(m[2]) } : null;
}

export interface BackupScheduleOptions {
  cron: string;
  keep: number;
  files: BackupFiles;
  save: () => unknown;
  log: Logger;
  /**
   * Non-null when this start found the database damaged (src/store/salvage.ts): the scheduled
   * backups made before it hold what its damaged pages lost, so they are renamed
   * `before-damage-<name>` and never pruned (the user deletes them).
   */
  damaged?: () => unknown;
  /**
   * Why the older scheduled backups must stay for now, or null: a datastore document the new ones
   * leave out (its stored text went bad) has its last good copy in them.
   */
  holdPrune?: () => string | null;
}

export const BEFORE_DAMAGE_PREFIX = 'before-damage-';

export class BackupSchedule {
  private job: Cron | null = null;

  constructor(private readonly opts: BackupScheduleOptions) {}

  /** Throws when the cron expression is not valid. */
  start(): void {
    if (!isValidCron(this.opts.cron))
      throw new Error(`backupSchedule: ${JSON.stringify(this.opts.cron)} is not a valid cron expression`);
    // protect: a slow save is never overlapped by the next run.
    const partial = this.opts.files.sweepPartial();
    if (partial)
      this.opts.log.info(
        { partial },
        'removed what backup writes cut short by a stop (or a backup removed by hand) left behind',
      );
    if (this.opts.damaged?.()) this.keepBeforeDamage();
    this.job = new Cron(this.opts.cron, { protect: true }, () => {
      this.runOnce();
    });
  }

  private keepBeforeDamage(): void {
    const kept = this.opts.files.list().filter((n) => SCHEDULED_NAME.test(n));
    for (const name of kept) this.keepAs(name);
    if (kept.length)
      this.opts.log.warn(
        { kept: kept.length },
        `the database was damaged: the ${kept.length} scheduled backups made before are kept as ${BEFORE_DAMAGE_PREFIX}<name> and not pruned; delete them once nothing more is needed from them`,
      );
  }

  /** Renamed `before-damage-<name>`, or `-2`, `-3`... after it when a directory holds that name
   *  (left under its own name it would be pruned, and with it what the damage lost). */
  private keepAs(name: string): void {
    for (let i = 1; i <= 10; i++) {
      try {
        this.opts.files.rename(name, `${BEFORE_DAMAGE_PREFIX}${name}${i > 1 ? `-${i}` : ''}`);
        return;
      } catch (e) {
        if (i === 10 || !(e instanceof DamagedBackupError)) {
          this.opts.log.warn(
            { err: e, name },
            `scheduled backup ${name} could not be kept as ${BEFORE_DAMAGE_PREFIX}${name}`,
          );
          return;
        }
      }
    }
  }

  stop(): void {
    this.job?.stop();
    this.job = null;
  }

  nextRun(): Date | null {
    return this.job?.nextRun() ?? null;
  }

  /** Save one scheduled backup now and prune old ones. Never throws. */
  runOnce(): string | null {
    try {
      const stamp = utcStamp(new Date());
      // Saves within one second are numbered one past the highest of that second, never a number
      // the prune freed: the newest must sort last, or the prune takes it.
      const taken = this.opts.files
        .list()
        .map(saveOrder)
        .flatMap((o) => (o?.stamp === stamp ? [o.n] : []));
      const n = taken.length ? Math.max(...taken) + 1 : 1;
      const name = `${AUTO_PREFIX}${stamp}${n > 1 ? `-${n}` : ''}`;
      this.opts.files.write(name, { name, ...(this.opts.save() as object) });
      const hold = this.opts.holdPrune?.();
      if (hold) this.opts.log.warn({ name }, `scheduled backups not pruned: ${hold}`);
      else this.prune(stamp);
      this.opts.log.info({ name }, 'scheduled backup saved');
      return name;
    } catch (e) {
      this.opts.log.error({ err: e }, 'scheduled backup failed');
      return null;
    }
  }

  /** Only names this schedule made, ordered by the UTC timestamp in the name (file times are not
   *  trusted), then by the number of saves within one second (as numbers: -10 after -9). A name
   *  stamped after `now` was made before the clock was set back (it ran ahead, NTP corrected it): it
   *  counts as older than every name made since, or each new backup would sort first and be pruned
   *  right after it was saved until the clock caught up again. */
  private prune(now: string): void {
    const auto = this.opts.files
      .list()
      .flatMap((name) => {
        const o = saveOrder(name);
        return o ? [{ name, ...o, ahead: o.stamp > now }] : [];
      })
      .sort(
        (a, b) =>
          Number(b.ahead) - Number(a.ahead) || (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : 0) || a.n - b.n,
      )
      .map((e) => e.name);
    for (const name of auto.slice(0, Math.max(0, auto.length - this.opts.keep))) {
      // One that cannot be removed (a directory put under its name since it was listed) is passed,
      // not the end of the prune: the older ones behind it would pile up.
      try {
        this.opts.files.remove(name);
      } catch (e) {
        this.opts.log.warn({ err: e, name }, 'scheduled backup not pruned');
      }
    }
  }
}

/** `20261122T100000Z`: sorts as the time does. */
function utcStamp(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** True when croner accepts the cron expression and it ever fires (`0 0 30 2 *` never does). */
export function isValidCron(cron: string): boolean {
  try {
    return new Cron(cron, { paused: true }).nextRun() !== null;
  } catch {
    return false;
  }
}

/** The reason to keep the older scheduled backups while `keys` (rotten documents they hold whole) are left out of new ones. */
export function rottenHold(keys: string[]): string | null {
  if (!keys.length) return null;
  return `the datastore documents ${keys.map((k) => `'${k}'`).join(', ')} are damaged in the database and left out of new backups; the older backups hold their last good copies`;
}
