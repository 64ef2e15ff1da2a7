// The text of each message: title and body name the condition, the block and the values.
import { randomUUID } from 'node:crypto';
import { formatDuration } from '../shared/duration.js';
import { CONDITION_TITLES, type ActiveAlert, type AlertEnd, type AlertEventKind, type AlertMessage } from './types.js';

/** `now`: the monotonic time the alert's times are on (times.ts); `wall`: the clock's reading, for `at`. */
export function alertMessage(
  serviceId: string,
  event: AlertEventKind,
  a: ActiveAlert,
  now: number,
  wall: number,
  ended?: AlertEnd,
): AlertMessage {
  const subject = `${CONDITION_TITLES[a.kind]}: ${a.blockId ?? serviceId}`;
  const flaps = a.count > 1 ? ` It went bad ${a.count} times.` : '';
  // The time the service was stopped meanwhile is left out where the clock could not show it.
  const duration = (ms: number) => `${a.stopUnknown ? 'at least ' : ''}${formatDuration(ms)}`;
  const texts: Record<AlertEventKind, [string, string, number]> = {
    fired: [subject, `${a.text}.${flaps}`, 4],
    reminder: [`Still active: ${subject}`, `${a.text}. Active for ${duration(now - a.firstSeenAt)}.${flaps}`, 4],
    resolved:
      ended === 'deleted'
        ? [
            `Block deleted: ${subject}`,
            `${a.blockId} was deleted while this alert was active (for ${duration(now - a.firstSeenAt)}): it is no longer watched.${flaps} It was: ${a.text}.`,
            3,
          ]
        : typeof ended === 'object'
          ? [
              `No longer watched: ${subject}`,
              `${ended.why} while this alert was active (for ${duration(now - a.firstSeenAt)}): the problem is no longer watched, not back to normal.${flaps} It was: ${a.text}.`,
              3,
            ]
          : ended === 'unwatched'
            ? [
                `Alert turned off: ${subject}`,
                `This alert was turned off in the rules while it was active (for ${duration(now - a.firstSeenAt)}): it is no longer watched, not back to normal.${flaps} It was: ${a.text}.`,
                3,
              ]
            : [
                `Resolved: ${subject}`,
                `Back to normal after ${duration(now - a.firstSeenAt)}.${flaps} It was: ${a.text}.`,
                3,
              ],
    acknowledged: [`Acknowledged: ${subject}`, `${a.text}.`, 2],
    test: [subject, a.text, 3],
  };
  const [title, message, priority] = texts[event];
  return {
    id: `${serviceId}-${randomUUID()}`,
    event,
    serviceId,
    key: a.key,
    condition: a.kind,
    blockId: a.blockId ?? null,
    title: `[${serviceId}] ${title}`,
    message,
    priority,
    count: a.count,
    values: a.values ?? {},
    at: new Date(wall).toISOString(),
  };
}

export function testMessage(serviceId: string, now: number): AlertMessage {
  return {
    id: `${serviceId}-${randomUUID()}`,
    event: 'test',
    serviceId,
    key: 'test',
    condition: 'test',
    blockId: null,
    title: `[${serviceId}] Test message`,
    message: `This is a test alert from edgeblocks ${serviceId}. If you read this, the channel works.`,
    priority: 3,
    count: 1,
    values: {},
    at: new Date(now).toISOString(),
  };
}
