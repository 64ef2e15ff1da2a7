// Readable logs for a terminal: one line per event, `12:00:01 INFO  message key=value ...`,
// made from pino's JSON record (a destination of our own; no worker thread, no pino-pretty).
const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const COLOURS: Record<number, string> = { 10: '90', 20: '90', 30: '32', 40: '33', 50: '31', 60: '41;97' };
const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'module', 'err']);
const MAX_EXTRA = 240;

function clock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function show(value: unknown): string {
  if (typeof value === 'string') return /[\s="]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/** One line for one pino JSON record (a line that is not JSON is passed through). */
export function prettyLine(json: string, colour = false): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json);
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = Number(rec.level);
  const name = (LEVEL_NAMES[level] ?? String(rec.level)).padEnd(5);
  const time = clock(typeof rec.time === 'number' ? rec.time : Date.now());
  const err = rec.err as { message?: string; type?: string } | undefined;
  let msg = String(rec.msg ?? '');
  if (err?.message && !msg.includes(err.message)) msg = msg ? `${msg}: ${err.message}` : err.message;
  let extra = Object.entries(rec)
    .filter(([k, v]) => !SKIP.has(k) && v !== undefined && !msg.includes(show(v)))
    .map(([k, v]) => `${k}=${show(v)}`)
    .join(' ');
  if (extra.length > MAX_EXTRA) extra = `${extra.slice(0, MAX_EXTRA - 3)}...`;
  const line = `${time} ${colour ? `\x1b[${COLOURS[level] ?? '0'}m${name}\x1b[0m` : name} ${msg.replace(/\r?\n/g, ' ')}`;
  return `${line}${extra ? (colour ? ` \x1b[90m${extra}\x1b[0m` : ` ${extra}`) : ''}\n`;
}
