// Blocks whose state the control loop could not store because the disk is full or refuses writes
// (read-only, I/O errors). Control goes on from memory (failing storage must not stop it; the
// store has reported the failure); the blocks are stored again, at most every few seconds, once
// it takes writes.
import { isStorageFailure } from '../shared/errors.js';
import type { RuntimeCore } from './core.js';
import type { AnyBlock } from './types.js';

const RETRY_MS = 5000;

export class UnsavedBlocks {
  private readonly blocks = new Set<AnyBlock>();
  private lastTry = -Infinity;

  constructor(private readonly rt: RuntimeCore) {}

  /** Persist from inside an update: failing storage is remembered, anything else thrown. */
  persist(block: AnyBlock): void {
    try {
      this.rt.persist(block);
      this.blocks.delete(block);
    } catch (e) {
      if (!isStorageFailure(e)) throw e;
      this.blocks.add(block);
    }
  }

  /** Try the remembered blocks again (called every tick; `now` on the monotonic clock). */
  retry(now: number): void {
    if (!this.blocks.size || now - this.lastTry < RETRY_MS) return;
    this.lastTry = now;
    for (const block of [...this.blocks]) {
      try {
        this.rt.persist(block);
      } catch (e) {
        if (isStorageFailure(e)) return;
        this.rt.log.error({ err: e, id: block.id }, 'storing a block changed by control failed');
      }
      this.blocks.delete(block);
    }
  }
}
