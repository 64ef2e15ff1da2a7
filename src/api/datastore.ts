// The datastore API (spec §4.3) under /history/datastore. Shapes:
//   get {namespace, id} -> {value: doc|null}        set {value: doc} -> {value: doc}
//   mget {namespace, ids?, filter?} -> {values}     mset {values: [doc]} -> {values}
//   delete {namespace, id} -> {count}               mdelete {namespace, ids?, filter?} -> {count}
// Bodies are checked by fastify against the route schemas (route-validation.ts), which are the
// rulebook of src/store/datastore-validate.ts; what a schema cannot say (a document's size as
// stored, and the schema of the key of a document the service reads itself: the units) is
// checked here, by the same rulebook. The store's total size (DATASTORE_BYTES) is the
// DocumentStore's own rule (a write past it throws DatastoreFullError, answered 507). Change events come from the DocumentStore's
// own events, so every writer (this API, backup load) publishes alike.
import type { Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { READS } from './access.js';
import type { DocumentStore } from '../store/documents.js';
import {
  KeyQuerySchema,
  SetQuerySchema,
  setQueryOf,
  storedIssues,
  ValueBodySchema,
  ValuesBodySchema,
} from '../store/datastore-validate.js';
import { datastoreSchemas as s } from './datastore-schemas.js';
import { invalidInput } from './route-validation.js';

type KeyBody = { Body: Static<typeof KeyQuerySchema> };
type SetBody = { Body: Static<typeof SetQuerySchema> };

export function datastoreRoutes(documents: DocumentStore): FastifyPluginAsync {
  return async (app) => {
    const doc = (summary: string, description: string, body: unknown, response: unknown) => ({
      schema: { tags: ['datastore'], summary, description, body, response: { 200: response } },
    });
    /** A route that changes nothing (src/api/access.ts): a viewer may call it. */
    const reads = (...args: Parameters<typeof doc>) => ({ ...doc(...args), config: READS });

    app.get(
      '/datastore/ping',
      {
        schema: {
          tags: ['datastore'],
          summary: 'Liveness check of the datastore',
          description: 'Answers {"ping": "pong"} when the database answers.',
          response: { 200: s.pong },
        },
      },
      async (_req, reply) => {
        documents.ping();
        void reply.headers({
          'cache-control': 'no-cache, no-store, must-revalidate, proxy-revalidate, max-age=0',
          pragma: 'no-cache',
          expires: '0',
        });
        return { ping: 'pong' };
      },
    );

    app.post<KeyBody>(
      '/datastore/get',
      reads(
        'Fetch one document',
        'A missing document gives {"value": null}. Other members of the body are ignored.',
        s.keyQuery,
        s.valueOrNull,
      ),
      async (req) => ({ value: documents.get(req.body.namespace, req.body.id) }),
    );

    app.post<SetBody>(
      '/datastore/mget',
      reads(
        'Fetch several documents',
        s.setQueryText +
          ' With neither ids nor filter: the whole namespace, nested namespaces included. Missing ids are left out.',
        s.setQuery,
        s.values,
      ),
      async (req) => ({ values: documents.find(setQueryOf(req.body), true) }),
    );

    app.post<{ Body: Static<typeof ValueBodySchema> }>(
      '/datastore/set',
      doc(
        'Create or replace one document',
        'Publishes {"changed": [doc]} on <root>/datastore/<top-level namespace> when the stored content changed.',
        s.valueBody,
        s.value,
      ),
      async (req) => {
        const { value } = req.body;
        const issues = storedIssues(value, 'value', documents.shapes);
        if (issues.length) throw invalidInput('body', issues);
        documents.setMany([value]);
        return { value };
      },
    );

    app.post<{ Body: Static<typeof ValuesBodySchema> }>(
      '/datastore/mset',
      doc(
        'Create or replace several documents, all or nothing',
        'One invalid document fails the call and nothing is stored. Publishes one {"changed"} event per top-level namespace.',
        s.valuesBody,
        s.values,
      ),
      async (req) => {
        const { values } = req.body;
        const issues = values.flatMap((v, i) => storedIssues(v, `values.${i}`, documents.shapes));
        if (issues.length) throw invalidInput('body', issues);
        documents.setMany(values);
        return { values };
      },
    );

    app.post<KeyBody>(
      '/datastore/delete',
      doc(
        'Delete one document',
        'count is 0 or 1. Publishes {"deleted": [key]} only when a document was deleted.',
        s.keyQuery,
        s.count,
      ),
      async (req) => ({ count: documents.deleteMany([{ namespace: req.body.namespace, id: req.body.id }]).length }),
    );

    app.post<SetBody>(
      '/datastore/mdelete',
      doc(
        'Delete several documents, all or nothing',
        s.setQueryText +
          ' With neither ids nor filter nothing is deleted. Publishes one {"deleted"} event per top-level namespace, listing the keys actually deleted.',
        s.setQuery,
        s.count,
      ),
      async (req) => ({ count: documents.deleteFound(setQueryOf(req.body)).length }),
    );
  };
}
