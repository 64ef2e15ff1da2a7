// `npm run soak [-- --days 30 --day-hours 24 --rate 2000 --json FILE]`: the built service on the
// emulated fermenter through a scripted month (scripts/soak/), with its figures per simulated week
// and every invariant that failed. Exit code 1 when one did. Needs root (a tmpfs for the data
// dir) and mosquitto. docs/development.md says what it checks.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runSoak } from './soak/run.js';
import { SOAK_DEFAULTS, type DayFigures } from './soak/types.js';

const { values } = parseArgs({
  options: {
    days: { type: 'string', default: String(SOAK_DEFAULTS.days) },
    'day-hours': { type: 'string', default: String(SOAK_DEFAULTS.dayHours) },
    rate: { type: 'string', default: String(SOAK_DEFAULTS.rate) },
    json: { type: 'string' },
  },
});

function positive(name: string, raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`soak: --${name} must be a positive number, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return n;
}

const days = Math.round(positive('days', values.days));
const dayHours = positive('day-hours', values['day-hours']);
const rate = positive('rate', values.rate);
const report = await runSoak({ days, dayHours, rate, diskSize: days * dayHours > 72 ? '256m' : '64m' });

const mb = (b: number | null) => (b === null ? '-' : (b / 1048576).toFixed(2));
const row = (label: string, d: DayFigures) =>
  `| ${label} | ${d.realSeconds} | ${mb(d.rssBytes)} (${d.uptimeHours} h up) | ${mb(d.dbBytes)} | ${mb(d.historyBytes)} | ${mb(d.backupsBytes)} |`;
const lines = [
  `soak: ${report.days} simulated days of ${report.dayHours} h in ${report.realSeconds} s real`,
  '',
  '| end of | real s | RSS MB (service uptime) | database MB | history MB | backups MB |',
  '|---|---|---|---|---|---|',
];
const perWeek = report.dayHours === 24 ? 7 : 1;
for (const d of report.figures)
  if (d.day === 0 || (d.day + 1) % perWeek === 0 || d.day === report.figures.length - 1)
    lines.push(row(perWeek === 7 && (d.day + 1) % 7 === 0 ? `week ${(d.day + 1) / 7}` : `day ${d.day}`, d));
lines.push(
  '',
  `faults injected: ${report.faults.map((f) => `${f.kind}${f.expect ? ` (-> ${f.expect})` : ''}`).join(', ')}`,
  `alerts sent: ${
    Object.entries(report.alertsSent)
      .map(([k, n]) => `${k} x${n}`)
      .join(', ') || 'none'
  }`,
  `worst beer deviation from the profile outside the faults: ${report.worstDeviation.degC} degC (${report.worstDeviation.at ?? '-'}), ${report.samples} samples`,
  '',
  report.failures.length === 0 ? 'every invariant held' : `${report.failures.length} invariant(s) failed:`,
  ...report.failures.map((f) => `  - ${f}`),
);
process.stdout.write(`${lines.join('\n')}\n`);
if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
process.exit(report.failures.length === 0 ? 0 : 1);
