// The store: the data dir lock (taken by createApp before anything else), the database, block
// persistence, documents and the unit preference read from them. Stops last: the database closes
// and the lock is released.
import { UnitsDocumentSchema } from '../../codec/units.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { GLOBAL_NAMESPACE, UnitsSetting, UNITS_DOC_ID } from '../../runtime/units-setting.js';
import { BlockStore } from '../../store/block-store.js';
import type { DataDirLock } from '../../store/data-dir-lock.js';
import { bridgeDatastore, type Publish, type Subscribe } from '../../store/datastore-bus.js';
import { openDatabase, type Db } from '../../store/db.js';
import { DocumentStore, type Doc } from '../../store/documents.js';
import { forgetReport, type DamagedDatabase } from '../../store/salvage.js';
import { StorageHealth } from '../../store/storage-health.js';
import { DATASTORE_EVENT_DEPTH } from '../../shared/limits.js';
import type { Subsystem } from '../lifecycle.js';

/** `subscribe` reads JSON no deeper than `maxDepth`. */
export type DatastoreBus = {
  publish: Publish;
  subscribe?: (...args: [...Parameters<Subscribe>, opts: { maxDepth: number }]) => unknown;
};

export class StoreSubsystem implements Subsystem {
  readonly name = 'store';
  readonly db: Db;
  readonly storage: StorageHealth;
  readonly blocks: BlockStore;
  readonly units: UnitsSetting;
  readonly documents: DocumentStore;
  /** What was saved of a damaged database file at this start, or null when it was whole. */
  damaged: DamagedDatabase | null = null;

  /** The damaged database has been told of (its alert is recorded): later starts do not repeat it. */
  damagedReported(): void {
    if (this.damaged) forgetReport(this.db);
  }

  constructor(
    private readonly config: Config,
    private readonly lock: DataDirLock,
    private readonly log: Logger,
  ) {
    this.db = openDatabase(config.dataDir, log.child({ module: 'store' }), (report) => {
      this.damaged = report;
    });
    this.storage = new StorageHealth(config.dataDir, log.child({ module: 'storage' }), probeWrite(this.db));
    this.blocks = new BlockStore(this.db, (e) => this.storage.noteError(e), log.child({ module: 'store' }));
    const units = new UnitsSetting(config.serviceId);
    this.units = units;
    this.documents = new DocumentStore(
      this.db,
      (namespace, id) => (units.isUnitsKey(namespace, id) ? UnitsDocumentSchema : undefined),
      (key, reason) =>
        log.warn(
          { key, reason },
          `datastore document '${key}' is damaged in the database (${reason}); it is left out of reads until it is written again`,
        ),
      (event, err) => log.error({ err, event }, `a listener of the datastore's '${event}' event failed`),
    );
    // A store from before the bound: said once here, since the first a user sees of it is a 507 on a save.
    const pastBound = this.documents.pastBound();
    if (pastBound) log.warn({ bytes: this.documents.bytes, maxBytes: this.documents.maxBytes }, pastBound);
    units.apply(this.documents.get(GLOBAL_NAMESPACE, UNITS_DOC_ID), GLOBAL_NAMESPACE);
    units.apply(this.documents.get(config.serviceId, UNITS_DOC_ID));
    // The controller's own documents, changed here or (through the bus) in another datastore.
    this.documents.on('changed', (docs: Doc[]) => this.onDocs(docs));
    this.documents.on('deleted', (keys: string[]) => this.onDeletedKeys(keys));
  }

  /**
   * Publishes datastore change events on a message bus and applies events about the controller's
   * namespace from other datastores. Returns the detach function.
   */
  attachBus(bus: DatastoreBus): () => void {
    const { config, log } = this;
    return bridgeDatastore({
      documents: this.documents,
      topicRoot: config.topicRoot,
      namespace: config.serviceId,
      publish: (topic, payload, flags) => bus.publish(topic, payload, flags),
      // An event nests its documents a level deeper than the body that stored them.
      subscribe:
        bus.subscribe && ((topic, handler) => bus.subscribe!(topic, handler, { maxDepth: DATASTORE_EVENT_DEPTH })),
      onRemote: ({ changed, deleted }) => {
        this.onDeletedKeys(deleted);
        this.onDocs(changed);
      },
      onError: (err) => log.debug({ err }, 'datastore event not published'),
    });
  }

  stop(): void {
    try {
      this.db.close();
    } finally {
      this.lock.release();
    }
  }

  status(): Record<string, unknown> {
    return {
      quarantined: this.blocks.quarantined().map(({ nid, id, type, reason, at }) => ({ nid, id, type, reason, at })),
      storage: this.storage.status(),
      damagedDatabase: this.damaged,
      rottenDocuments: this.documents.rotten(),
    };
  }

  private onDocs(docs: Doc[]): void {
    for (const d of docs)
      if (this.units.isUnitsKey(d.namespace, d.id) && this.units.apply(d))
        this.log.info({ units: this.units.prefs }, 'unit preference changed');
  }

  private onDeletedKeys(keys: string[]): void {
    for (const ns of [GLOBAL_NAMESPACE, this.config.serviceId]) {
      if (keys.includes(`${ns}:${UNITS_DOC_ID}`) && this.units.apply(null, ns))
        this.log.info({ units: this.units.prefs }, 'unit preference reset');
    }
  }
}

/** One committed write that leaves nothing behind: it throws while the storage refuses writes. */
function probeWrite(db: Db): () => void {
  const put = db.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('storage_probe', '')");
  const drop = db.prepare("DELETE FROM settings WHERE key = 'storage_probe'");
  return db.transaction(() => {
    put.run();
    drop.run();
  });
}
