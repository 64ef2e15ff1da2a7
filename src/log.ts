import { pino, type Logger as PinoLogger } from 'pino';
import { prettyLine } from './log/pretty.js';

export type Logger = PinoLogger;
export type LogFormat = 'auto' | 'json' | 'pretty';

/** syslog priorities for pino's numeric levels, as journald reads them from a `<N>` prefix. */
const SYSLOG_PRIORITY: Record<number, number> = { 10: 7, 20: 7, 30: 6, 40: 4, 50: 3, 60: 2 };

/** A line for journald: `<priority>` then the JSON record, without pino's own timestamp. */
export function journaldLine(line: string): string {
  const m = /"level":(\d+)/.exec(line);
  const priority = SYSLOG_PRIORITY[Number(m?.[1])] ?? 6;
  return `<${priority}>${line}`;
}

/** Defence in depth: fields that could carry a secret are never written, whatever logs them. */
const REDACT = [
  'password',
  '*.password',
  'token',
  '*.token',
  'cookie',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
];

/**
 * Logs on stdout. `pretty` (the default on a terminal): one readable line per event. `json`
 * (the default otherwise): JSON lines; under systemd (JOURNAL_STREAM set) journald already
 * stamps every line, so the timestamp is left out and each line carries its syslog priority.
 */
export function createLogger(
  level = 'info',
  env: NodeJS.ProcessEnv = process.env,
  out: { write(s: string): unknown; isTTY?: boolean } = process.stdout,
  format: LogFormat = 'auto',
): PinoLogger {
  const redact = { paths: REDACT, censor: '[redacted]' };
  const pretty = format === 'pretty' || (format === 'auto' && out.isTTY === true && !env.JOURNAL_STREAM);
  if (pretty) {
    const colour = out.isTTY === true && !env.NO_COLOR;
    return pino(
      { level, base: undefined, redact },
      { write: (line: string) => out.write(prettyLine(line.trimEnd(), colour)) },
    );
  }
  if (env.JOURNAL_STREAM) {
    return pino(
      { level, base: undefined, timestamp: false, redact },
      { write: (line: string) => out.write(journaldLine(line)) },
    );
  }
  return pino({ level, base: undefined, redact }, out as NodeJS.WritableStream);
}

export const silentLogger: Logger = pino({ level: 'silent' });
