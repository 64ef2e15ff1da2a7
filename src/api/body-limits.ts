// What a route's JSON body may be: BODY_LIMIT bytes and MAX_JSON_DEPTH deep, unless the route says
// more. A backup does: it holds every block and document, each set by a body of its own, so it is
// larger and a level deeper than any of them (shared/limits.ts). The JSON parser (server.ts)
// reads both from the route.
import { BACKUP_JSON_DEPTH, STORED_BACKUP_BYTES } from '../shared/limits.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How deep the route's JSON body may nest (default MAX_JSON_DEPTH). */
    jsonDepth?: number;
  }
}

/** Route options of a route whose body is a whole backup (blocks/backup/load, stored/upload). */
export const BACKUP_BODY = { bodyLimit: STORED_BACKUP_BYTES, config: { jsonDepth: BACKUP_JSON_DEPTH } };
