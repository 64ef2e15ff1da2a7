// Schema migrations, applied in order and recorded in PRAGMA user_version. Never edit a
// migration that has shipped; add a new one.
export const MIGRATIONS: string[] = [
  // 1: block records, quarantined records, the nid counter and datastore documents.
  `CREATE TABLE blocks (
     nid INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     type TEXT NOT NULL,
     data TEXT NOT NULL,
     meta TEXT NOT NULL DEFAULT '{}'
   );
   CREATE TABLE quarantine (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     nid INTEGER NOT NULL,
     id TEXT NOT NULL,
     type TEXT NOT NULL,
     data TEXT NOT NULL,
     meta TEXT NOT NULL,
     reason TEXT NOT NULL,
     at TEXT NOT NULL
   );
   CREATE TABLE settings (
     key TEXT PRIMARY KEY,
     value TEXT NOT NULL
   );
   CREATE TABLE documents (
     namespace TEXT NOT NULL,
     id TEXT NOT NULL,
     value TEXT NOT NULL,
     PRIMARY KEY (namespace, id)
   ) WITHOUT ROWID;`,
  // 2: alerts (src/alerts/store.ts): the active alerts, the last events, and the outbox of
  // messages waiting for a channel.
  `CREATE TABLE alert_active (
     key TEXT PRIMARY KEY,
     value TEXT NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE alert_history (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     value TEXT NOT NULL
   );
   CREATE TABLE alert_outbox (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     message_id TEXT NOT NULL,
     channel TEXT NOT NULL,
     message TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_at INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     last_error TEXT,
     UNIQUE (message_id, channel)
   );`,
];
