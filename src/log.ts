import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

export function createLogger(level = 'info'): PinoLogger {
  return pino({ level, base: undefined });
}

export const silentLogger: Logger = pino({ level: 'silent' });
