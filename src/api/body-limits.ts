// What a route's JSON body may be: BODY_LIMIT bytes and MAX_JSON_DEPTH deep, unless the route says
// more. A backup does: it holds every block and document, each set by a body of its own, so it is
// larger and a level deeper than any of them (shared/limits.ts). The JSON parser (server.ts)
// reads both from the route.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BACKUP_JSON_DEPTH, STORED_BACKUP_BYTES } from '../shared/limits.js';
import { HttpError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How deep the route's JSON body may nest (default MAX_JSON_DEPTH). */
    jsonDepth?: number;
    /** Keep the body's text with it when it holds an integer a double cannot hold (sentTextOf): the route stores it as sent. */
    keepText?: boolean;
  }
}

/** HTTP servers receiving or loading a backup body now. */
const receiving = new WeakSet<object>();

/**
 * One backup body at a time per server: each may be 64 MiB, held as bytes, text and parsed value
 * at once, and two or three of those together would not fit a Pi Zero 2 W's 512 MB. Another is
 * answered 503 at once, before its body is read; the slot is free when the answer is sent or the
 * client goes away.
 */
async function oneBackupAtATime(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const server = req.server.server;
  if (receiving.has(server)) {
    reply.header('retry-after', '5');
    throw new HttpError(503, 'another backup is being received or loaded; send this one when it is done');
  }
  receiving.add(server);
  reply.raw.once('close', () => receiving.delete(server));
}

/** Route options of a route whose body is a whole backup (blocks/backup/load, stored/upload). */
export const BACKUP_BODY = {
  bodyLimit: STORED_BACKUP_BYTES,
  config: { jsonDepth: BACKUP_JSON_DEPTH },
  onRequest: oneBackupAtATime,
};

/** BACKUP_BODY of a route that stores the backup as sent (stored/upload): its text kept where JSON.stringify would change it. */
export const STORED_BACKUP_BODY = { ...BACKUP_BODY, config: { ...BACKUP_BODY.config, keepText: true } };
