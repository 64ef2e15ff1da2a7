// The block API routes: every endpoint of the spec, all POST with JSON bodies.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ALL, type BlockRuntime } from '../runtime/runtime.js';
import { READS } from './access.js';
import { BACKUP_BODY } from './body-limits.js';
import { blockSchemas } from './block-schemas.js';
import { NoBody } from './route-validation.js';

/** Send JSON encoded already (a read's bytes, from the runtime's encoding cache); fastify sends it as it is. */
const json = (reply: FastifyReply, text: string | Buffer) => reply.type('application/json; charset=utf-8').send(text);

export function blockRoutes(runtime: BlockRuntime): FastifyPluginAsync {
  return async (app) => {
    const s = blockSchemas([...runtime.types.values()]);
    for (const schema of s.shared) app.addSchema(schema);
    const doc = (summary: string, body: unknown, response: unknown, status = 200) => ({
      schema: { tags: ['blocks'], summary, body, response: { [status]: response } },
    });
    /** A route that changes nothing (src/api/access.ts): a viewer may call it. */
    const reads = (summary: string, body: unknown, response: unknown) => ({
      ...doc(summary, body, response),
      config: READS,
    });

    app.post('/blocks/create', doc('Create a block', s.blockIn, s.block, 201), async (req, reply) => {
      const block = runtime.create(req.body, 'rest');
      return reply.status(201).send(block);
    });
    app.post('/blocks/read', reads('Read one block', s.ident, s.block), async (req, reply) =>
      json(reply, runtime.read(req.body).bytes()),
    );
    app.post('/blocks/read/logged', reads('Read the logged data of one block', s.ident, s.block), async (req, reply) =>
      json(reply, runtime.read(req.body, 'logged').bytes()),
    );
    app.post('/blocks/read/stored', reads('Read the stored data of one block', s.ident, s.block), async (req, reply) =>
      json(reply, runtime.read(req.body, 'stored').bytes()),
    );
    app.post('/blocks/write', doc('Write a block: the entire desired state', s.blockIn, s.block), async (req) =>
      runtime.write(req.body, 'rest'),
    );
    app.post(
      '/blocks/patch',
      doc('Patch a block: deep merge with its current state', s.patchIn, s.block),
      async (req) => runtime.patch(req.body, 'rest'),
    );
    app.post(
      '/blocks/delete',
      doc('Delete a block, or a list of blocks (all or nothing)', s.deleteIn, {
        anyOf: [s.identOut, { type: 'array', items: s.identOut }],
      }),
      async (req) =>
        Array.isArray(req.body) ? runtime.deleteMany(req.body, 'rest') : runtime.delete(req.body, 'rest'),
    );
    app.post('/blocks/rename', doc('Rename a block; links to it follow', s.rename, s.identOut), async (req) =>
      runtime.rename(req.body, 'rest'),
    );
    app.post('/blocks/validate', reads('Validate a block body without storing it', s.blockIn, s.block), async (req) =>
      runtime.validate(req.body),
    );
    app.post(
      '/blocks/batch/create',
      doc('Create a list of blocks, all or nothing', s.blocksIn, s.blocks, 201),
      async (req, reply) => reply.status(201).send(runtime.batch('create', req.body, 'rest')),
    );
    app.post('/blocks/batch/write', doc('Write a list of blocks, all or nothing', s.blocksIn, s.blocks), async (req) =>
      runtime.batch('write', req.body, 'rest'),
    );
    app.post('/blocks/batch/patch', doc('Patch a list of blocks, all or nothing', s.blocksIn, s.blocks), async (req) =>
      runtime.batch('patch', req.body, 'rest'),
    );
    app.post(
      '/blocks/batch/delete',
      doc('Delete a list of blocks, all or nothing', s.identsIn, { type: 'array', items: s.identOut }),
      async (req) => runtime.deleteMany(req.body, 'rest'),
    );
    app.post('/blocks/all/read', reads('Read every block', NoBody, s.blocks), async (_req, reply) =>
      json(reply, runtime.read(ALL).bytes()),
    );
    app.post('/blocks/all/read/logged', reads('Logged data of every block', NoBody, s.blocks), async (_req, reply) =>
      json(reply, runtime.read(ALL, 'logged').bytes()),
    );
    app.post('/blocks/all/read/stored', reads('Stored data of every block', NoBody, s.blocks), async (_req, reply) =>
      json(reply, runtime.read(ALL, 'stored').bytes()),
    );
    app.post(
      '/blocks/all/delete',
      doc('Delete every user block', NoBody, { type: 'array', items: s.identOut }),
      async () => runtime.deleteAll('rest'),
    );
    app.post(
      '/blocks/discover',
      doc('Discover new hardware; returns only the new blocks', NoBody, s.blocks),
      async () => runtime.discover('rest'),
    );
    app.post(
      '/blocks/backup/save',
      reads('Stored data of every block and the controller documents', NoBody, s.backup),
      async () => runtime.backupSave(),
    );
    app.post(
      '/blocks/backup/load',
      { ...doc('Replace every block with a backup', s.backupIn, s.messages), ...BACKUP_BODY },
      async (req) => runtime.backupLoad(req.body, 'rest'),
    );
  };
}
