// Server-side backups: list, save, upload, download and load backup files by name.
import { READS } from './access.js';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { BlockRuntime } from '../runtime/runtime.js';
import { BackupNameSchema, DamagedBackupError, type BackupFiles } from '../store/backup-files.js';
import { STORED_BACKUP_BODY } from './body-limits.js';
import { HttpError } from './errors.js';
import { invalidInput, NoBody } from './route-validation.js';
import { sentTextOf, unholdableNumber } from '../shared/json.js';

const named = Type.Object({ name: BackupNameSchema }, { additionalProperties: false });
/** A backup as blocks/backup/save answers it, with the name to store it under; what it holds is checked when it is loaded. */
const upload = Type.Object(
  { name: BackupNameSchema, blocks: Type.Array(Type.Unknown()) },
  { additionalProperties: true, description: 'A backup (as blocks/backup/save answers it) with a name' },
);

export function storedBackupRoutes(runtime: BlockRuntime, files: BackupFiles): FastifyPluginAsync {
  return async (app) => {
    const tags = ['backups'];
    /** `fn()`, a file that cannot be used under its name answered 422 by name. */
    const usable = <T>(fn: () => T): T => {
      try {
        return fn();
      } catch (e) {
        if (e instanceof DamagedBackupError) throw new HttpError(422, e.message);
        throw e;
      }
    };
    const read = (name: string, keepText = false) => {
      const backup = usable(() => files.read(name, keepText));
      if (backup === null) throw new HttpError(404, `no stored backup named '${name}'`);
      return backup;
    };
    app.post(
      '/blocks/backup/stored/all',
      { schema: { tags, summary: 'List stored backups, oldest first', body: NoBody }, config: READS },
      async () => files.list().map((name) => ({ name })),
    );
    app.post<{ Body: Static<typeof named> }>(
      '/blocks/backup/stored/save',
      { schema: { tags, summary: 'Save a backup under a name', body: named } },
      async (req) => {
        const backup = { name: req.body.name, ...runtime.backupSave() };
        usable(() => files.write(req.body.name, backup));
        return backup;
      },
    );
    app.post<{ Body: Static<typeof upload> }>(
      '/blocks/backup/stored/upload',
      {
        schema: { tags, summary: 'Store a backup given in the body (it must carry a name)', body: upload },
        ...STORED_BACKUP_BODY,
      },
      async (req, reply) => {
        // Stored as given, a number JSON cannot hold (1E400, parsed as Infinity) would be null in
        // the file, and its load a clean one with that value changed.
        const unholdable = unholdableNumber(req.body, '');
        if (unholdable) throw invalidInput('body', [unholdable]);
        // An integer a double cannot hold (9007199254740993) is stored, and answered, as sent:
        // written from the value, it would read 9007199254740992, and so would its load's refusal.
        usable(() => files.write(req.body.name, req.body));
        return asSentText(reply, req.body);
      },
    );
    app.post<{ Body: Static<typeof named> }>(
      '/blocks/backup/stored/download',
      { schema: { tags, summary: 'Return a stored backup', body: named }, config: READS },
      async (req, reply) => asSentText(reply, read(req.body.name, true)),
    );
    app.post<{ Body: Static<typeof named> }>(
      '/blocks/backup/stored/load',
      { schema: { tags, summary: 'Replace every block with a stored backup', body: named } },
      async (req) => runtime.backupLoad(read(req.body.name), 'backup'),
    );
  };
}

/** `value` as the answer; as the text it was sent or stored in where JSON.stringify would change a number of it. */
function asSentText(reply: FastifyReply, value: unknown): unknown {
  const text = sentTextOf(value);
  return text === undefined ? value : reply.type('application/json; charset=utf-8').send(text);
}
