import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/** syslog priorities for pino's numeric levels, as journald reads them from a `<N>` prefix. */
const SYSLOG_PRIORITY: Record<number, number> = { 10: 7, 20: 7, 30: 6, 40: 4, 50: 3, 60: 2 };

/** A line for journald: `<priority>` then the JSON record, without pino's own timestamp. */
export function journaldLine(line: string): string {
  const m = /"level":(\d+)/.exec(line);
  const priority = SYSLOG_PRIORITY[Number(m?.[1])] ?? 6;
  return `<${priority}>${line}`;
}

/**
 * JSON logs on stdout. Under systemd (JOURNAL_STREAM set) journald already stamps every line,
 * so the timestamp is left out and each line carries its syslog priority instead.
 */
export function createLogger(level = 'info', env: NodeJS.ProcessEnv = process.env, out: { write(s: string): unknown } = process.stdout): PinoLogger {
  if (env.JOURNAL_STREAM) {
    return pino({ level, base: undefined, timestamp: false }, { write: (line: string) => out.write(journaldLine(line)) });
  }
  return pino({ level, base: undefined }, out as NodeJS.WritableStream);
}

export const silentLogger: Logger = pino({ level: 'silent' });
