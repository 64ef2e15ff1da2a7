// A logger for an app under test whose lines a test reads back: each JSON line pino writes is
// parsed and kept in `lines`, in order.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../../src/log.js';

export interface LogLine {
  msg: string;
  [key: string]: unknown;
}

export function logLines(level = 'info'): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level }, sink), lines };
}
