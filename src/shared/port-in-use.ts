// A port another program holds is a user's mistake, not a crash: one line naming the port and
// the fix, exit code 2 (like a configuration error), no stack trace.
import { FixableError } from './errors.js';

export class PortInUseError extends FixableError {
  override name = 'PortInUseError';
}

export function isAddressInUse(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';
}

/** The one-line explanation for a busy port, with the flag that picks another one. */
export function portInUseMessage(what: string, host: string, port: number, flag: string): string {
  return `${what} port ${port} on ${host} is in use (is another edgeblocks running?): stop the other instance, or choose another port with ${flag}`;
}
