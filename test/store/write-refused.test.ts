// Storage that refuses writes with room left: an SD card the kernel remounted read-only after
// errors, or one failing with I/O errors. SQLite answers SQLITE_READONLY (or SQLITE_IOERR_*) to
// every write; `PRAGMA query_only` makes the real database answer so. The first alert's save
// threw inside the alert check ("alert evaluation failed"), so no alert was ever sent, not even
// once the card took writes again; status said the storage was fine, a block write was a bare
// 500, and control that stored a change ("block update failed") was cut short. Now, as on a full
// disk: alerts fire and are sent from memory (one of them says the storage refuses writes),
// status shows `storage.refused`, writes answer 503, control goes on from memory and stores its
// changes once the storage takes writes again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { logLines } from '../helpers/log-lines.js';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';
import { HttpReceiver, until } from '../alerts/receivers.js';
import { StorageHealth } from '../../src/store/storage-health.js';

t.test(
  'storage refusing writes: alerts are sent, status says so, 503, control goes on, and all is stored after',
  async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-write-refused-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const receiver = new HttpReceiver();
    await receiver.start();
    t.teardown(() => receiver.stop());
    const config = path.join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        alerts: {
          webhook: { url: receiver.url('/hook') },
          checkIntervalMs: 100,
          retryBaseMs: 200,
          retryMaxMs: 500,
          rules: { sensorNull: { after: 0 } },
        },
      }),
    );
    const { log, lines } = logLines();
    const rt = await startApp({ config, hardware: 'sim', history: 'off' }, { dataDir: path.join(dir, 'data'), log });
    t.teardown(() => rt.close());
    const status = async () => (await rt.post('system/status')).body;
    t.equal((await rt.post('blocks/discover')).status, 200, 'the emulated sensors are blocks');
    const sensor = rt.app.runtime
      .blocks()
      .find((b) => b.def.type === 'TempSensorOneWire' && b.data.address === '2801b00000000066');
    t.ok(sensor, 'the beer sensor is a block');
    for (const b of [
      {
        id: 'Beer Setpoint',
        type: 'SetpointSensorPair',
        data: { enabled: true, storedSetting: 30, 'sensorId<>': sensor!.id },
      },
      // At its end it stores the setpoint it set, from inside the control loop.
      {
        id: 'Steps',
        type: 'Sequence',
        data: {
          enabled: true,
          instructions: ['WAIT_DURATION duration=2s', 'SET_SETPOINT target=Beer Setpoint, setting=40C'],
        },
      },
    ])
      t.equal((await rt.post('blocks/create', b)).status, 201, `${b.id} created`);

    rt.app.db.pragma('query_only = ON');
    const write = await rt.post('blocks/write', { id: sensor!.id, type: 'TempSensorOneWire', data: { offset: 1 } });
    t.equal(write.status, 503, 'a block write is 503, not a bare 500');
    t.match(write.body?.message, /^storage not writable: /, 'saying the storage refuses writes');
    t.match((await status()).storage, { full: false, refused: { error: /^SQLITE_READONLY: / } }, 'status shows it');

    const storageAlert = await until('the storage alert at the webhook', limit(10_000), () =>
      receiver.json('/hook').find((m) => m.event === 'fired' && m.condition === 'storage-refused'),
    );
    t.match(storageAlert.message, /refuses writes \(read-only or failing: SQLITE_READONLY: /, 'naming the error');

    // A sensor pulled off its bus meanwhile: the alert is sent.
    t.equal((await rt.post('sim/devices/beer/unplug')).status, 200);
    // Other blocks fed by the sensor (its setpoint) may fire their own sensor-null alert first.
    const fired = await until('the sensor alert at the webhook', limit(10_000), () =>
      receiver
        .json('/hook')
        .find((m) => m.event === 'fired' && m.condition === 'sensor-null' && m.blockId === sensor!.id),
    );
    t.match(fired.message, /./, 'the alert names the pulled sensor, with a message');
    const setting = async () =>
      (await rt.post('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting?.value as number;
    await until('the sequence to set the setpoint', limit(10_000), async () => (await setting()) === 40);
    t.equal(
      (await rt.post('blocks/read', { id: 'Steps' })).body.data.activeInstruction,
      2,
      'the sequence ran to its end',
    );
    t.match((await status()).storage, { refused: { error: /SQLITE_READONLY/ } }, 'still refused');

    // The storage takes writes again.
    rt.app.db.pragma('query_only = OFF');
    await until(
      'status to show the storage writable',
      limit(10_000),
      async () => (await status()).storage.refused === null,
    );
    const stored = () =>
      JSON.parse(rt.app.runtime.persistence.loadBlocks().find((r) => r.id === 'Beer Setpoint')!.data).storedSetting
        .value;
    await until('the setting control made meanwhile to be stored', limit(15_000), () => stored() === 40);
    t.equal(
      (await rt.post('blocks/write', { id: sensor!.id, type: 'TempSensorOneWire', data: { offset: 1 } })).status,
      200,
      'block writes work again',
    );
    t.same(
      lines.filter((l) => /update failed|evaluation failed|request failed/.test(l.msg)).map((l) => l.msg),
      [],
      'no update, alert check or request failed for the storage',
    );
    t.equal(lines.filter((l) => /^storage refuses writes/.test(l.msg)).length, 1, 'one line when it began');
    t.equal(lines.filter((l) => /^storage takes writes/.test(l.msg)).length, 1, 'one line when it ended');
  },
);

t.test(
  'an I/O error on a disk with no room is the full disk, not a second problem; other errors are neither',
  async (t) => {
    const quiet = { warn: () => undefined, info: () => undefined };
    // Each failed write throws an error of its own (the storage marks the one it counts as full).
    const ioError = () => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
    const probe = () => {
      throw ioError();
    };
    const noRoom = new StorageHealth('/data', quiet, probe, () => 0);
    t.equal(noRoom.noteError(ioError()), true, 'a storage failure');
    t.match(noRoom.status(), { full: true, refused: null }, 'counted as the full disk');

    const room = new StorageHealth('/data', quiet, probe, () => 1e9);
    t.equal(room.noteError(ioError()), true, 'a storage failure');
    t.match(
      room.status(),
      { full: false, refused: { error: 'SQLITE_IOERR_WRITE: disk I/O error' } },
      'refused with room left',
    );

    const other = new StorageHealth('/data', quiet, probe, () => 1e9);
    t.equal(
      other.noteError(Object.assign(new Error('bus stuck'), { code: 'EIO' })),
      false,
      'a bare EIO is not the storage',
    );
    t.equal(other.noteError(new Error('a bug')), false);
    t.match(other.status(), { full: false, refused: null });
  },
);
