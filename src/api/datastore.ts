// The datastore API (spec §4.3) under /history/datastore. Shapes:
//   get {namespace, id} -> {value: doc|null}        set {value: doc} -> {value: doc}
//   mget {namespace, ids?, filter?} -> {values}     mset {values: [doc]} -> {values}
//   delete {namespace, id} -> {count}               mdelete {namespace, ids?, filter?} -> {count}
// Bodies are checked here against the route schemas' own TypeBox objects (Fastify's validator is
// off so that every problem is one 422 naming each field); change events come from the
// DocumentStore's own events, so every writer (this API, backup load) publishes alike.
import type { FastifyPluginAsync } from 'fastify';
import type { Doc, DocumentStore } from '../store/documents.js';
import {
  bodyIssues,
  documentIssues,
  isPlainObject,
  parseKeyQuery,
  parseSetQuery,
  ValuesBodySchema,
  type Issue,
} from '../store/datastore-validate.js';
import { HttpError } from './errors.js';
import { datastoreSchemas as s } from './datastore-schemas.js';

function objectBody(body: unknown): Record<string, unknown> {
  if (isPlainObject(body)) return body;
  const got =
    body === undefined
      ? 'no body'
      : Array.isArray(body)
        ? 'an array'
        : typeof body === 'string'
          ? 'text'
          : `${typeof body} ${JSON.stringify(body)}`;
  throw new HttpError(400, `the body must be a JSON object, got ${got}`);
}

function check<T>(result: { query?: T; issues: Issue[] }): T {
  if (result.issues.length || result.query === undefined) throw invalid(result.issues);
  return result.query;
}

function invalid(issues: Issue[]): HttpError {
  return new HttpError(
    422,
    `invalid datastore request: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
    issues,
  );
}

export function datastoreRoutes(documents: DocumentStore): FastifyPluginAsync {
  return async (app) => {
    const doc = (summary: string, description: string, body: unknown, response: unknown) => ({
      schema: { tags: ['datastore'], summary, description, ...(body ? { body } : {}), response: { 200: response } },
    });

    app.get(
      '/datastore/ping',
      doc('Liveness check of the datastore', 'Answers {"ping": "pong"} when the database answers.', null, s.pong),
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

    app.post(
      '/datastore/get',
      doc(
        'Fetch one document',
        'A missing document gives {"value": null}. Other members of the body are ignored.',
        s.keyQuery,
        s.valueOrNull,
      ),
      async (req) => {
        const q = check(parseKeyQuery(objectBody(req.body)));
        return { value: documents.get(q.namespace, q.id) };
      },
    );

    app.post(
      '/datastore/mget',
      doc(
        'Fetch several documents',
        s.setQueryText +
          ' With neither ids nor filter: the whole namespace, nested namespaces included. Missing ids are left out.',
        s.setQuery,
        s.values,
      ),
      async (req) => {
        const q = check(parseSetQuery(objectBody(req.body)));
        return { values: documents.find(q, true) };
      },
    );

    app.post(
      '/datastore/set',
      doc(
        'Create or replace one document',
        'Publishes {"changed": [doc]} on <root>/datastore/<top-level namespace> when the stored content changed.',
        s.valueBody,
        s.value,
      ),
      async (req) => {
        const body = objectBody(req.body);
        const issues = documentIssues(body.value, 'value', documents.shapes);
        if (issues.length) throw invalid(issues);
        documents.setMany([body.value as Doc]);
        return { value: body.value };
      },
    );

    app.post(
      '/datastore/mset',
      doc(
        'Create or replace several documents, all or nothing',
        'One invalid document fails the call and nothing is stored. Publishes one {"changed"} event per top-level namespace.',
        s.valuesBody,
        s.values,
      ),
      async (req) => {
        const body = objectBody(req.body);
        const shapeIssues = bodyIssues(ValuesBodySchema, body);
        if (shapeIssues.length) throw invalid(shapeIssues);
        const issues = (body.values as unknown[]).flatMap((v, i) => documentIssues(v, `values.${i}`, documents.shapes));
        if (issues.length) throw invalid(issues);
        documents.setMany(body.values as Doc[]);
        return { values: body.values };
      },
    );

    app.post(
      '/datastore/delete',
      doc(
        'Delete one document',
        'count is 0 or 1. Publishes {"deleted": [key]} only when a document was deleted.',
        s.keyQuery,
        s.count,
      ),
      async (req) => {
        const q = check(parseKeyQuery(objectBody(req.body)));
        return { count: documents.deleteMany([q]).length };
      },
    );

    app.post(
      '/datastore/mdelete',
      doc(
        'Delete several documents, all or nothing',
        s.setQueryText +
          ' With neither ids nor filter nothing is deleted. Publishes one {"deleted"} event per top-level namespace, listing the keys actually deleted.',
        s.setQuery,
        s.count,
      ),
      async (req) => {
        const q = check(parseSetQuery(objectBody(req.body)));
        return { count: documents.deleteFound(q).length };
      },
    );
  };
}
