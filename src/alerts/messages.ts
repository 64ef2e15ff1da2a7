// The text of each message: title and body name the condition, the block and the values.
import { randomUUID } from 'node:crypto';
import { CONDITION_TITLES, type ActiveAlert, type AlertEventKind, type AlertMessage } from './types.js';

export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const parts = [
    Math.floor(s / 86400) && `${Math.floor(s / 86400)}d`,
    Math.floor((s % 86400) / 3600) && `${Math.floor((s % 86400) / 3600)}h`,
    Math.floor((s % 3600) / 60) && `${Math.floor((s % 3600) / 60)}m`,
    `${s % 60}s`,
  ];
  return parts.filter(Boolean).join(' ');
}

/** `now`: the monotonic time the alert's times are on (times.ts); `wall`: the clock's reading, for `at`. */
export function alertMessage(
  serviceId: string,
  event: AlertEventKind,
  a: ActiveAlert,
  now: number,
  wall: number,
): AlertMessage {
  const subject = `${CONDITION_TITLES[a.kind]}: ${a.blockId ?? serviceId}`;
  const flaps = a.count > 1 ? ` It went bad ${a.count} times.` : '';
  const texts: Record<AlertEventKind, [string, string, number]> = {
    fired: [subject, `${a.text}.${flaps}`, 4],
    reminder: [`Still active: ${subject}`, `${a.text}. Active for ${duration(now - a.firstSeenAt)}.${flaps}`, 4],
    resolved: [
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
