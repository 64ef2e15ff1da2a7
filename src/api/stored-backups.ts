// Server-side backups: list, save, upload, download and load backup files by name.
import type { FastifyPluginAsync } from 'fastify';
import { isPlainObject } from '../codec/decode.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import { BackupNameError, type BackupFiles } from '../store/backup-files.js';
import { HttpError } from './errors.js';

function nameOf(body: unknown): string {
  if (!isPlainObject(body) || typeof body.name !== 'string')
    throw new HttpError(400, 'the body must name a backup: {"name": "..."}');
  return body.name;
}

export function storedBackupRoutes(runtime: BlockRuntime, files: BackupFiles): FastifyPluginAsync {
  return async (app) => {
    const tags = ['backups'];
    const guard = <T>(fn: () => T): T => {
      try {
        return fn();
      } catch (e) {
        if (e instanceof BackupNameError) throw new HttpError(422, e.message, [{ path: 'name', message: e.message }]);
        throw e;
      }
    };
    const read = (name: string) => {
      const backup = guard(() => files.read(name));
      if (backup === null) throw new HttpError(404, `no stored backup named '${name}'`);
      return backup;
    };
    app.post(
      '/blocks/backup/stored/all',
      { schema: { tags, summary: 'List stored backups, oldest first' } },
      async () => files.list().map((name) => ({ name })),
    );
    app.post('/blocks/backup/stored/save', { schema: { tags, summary: 'Save a backup under a name' } }, async (req) => {
      const name = nameOf(req.body);
      const backup = { name, ...runtime.backupSave() };
      guard(() => files.write(name, backup));
      return backup;
    });
    app.post(
      '/blocks/backup/stored/upload',
      { schema: { tags, summary: 'Store a backup given in the body (it must carry a name)' } },
      async (req) => {
        const name = nameOf(req.body);
        const body = req.body as Record<string, unknown>;
        if (!Array.isArray(body.blocks))
          throw new HttpError(422, 'a backup needs a blocks array', [{ path: 'blocks', message: 'required array' }]);
        guard(() => files.write(name, body));
        return body;
      },
    );
    app.post('/blocks/backup/stored/download', { schema: { tags, summary: 'Return a stored backup' } }, async (req) =>
      read(nameOf(req.body)),
    );
    app.post(
      '/blocks/backup/stored/load',
      { schema: { tags, summary: 'Replace every block with a stored backup' } },
      async (req) => runtime.backupLoad(read(nameOf(req.body)), 'backup'),
    );
  };
}
