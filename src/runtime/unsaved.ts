// Blocks whose state the control loop could not store because the disk is full. Control goes on
// from memory (a full disk must not stop it; the store has reported the failure); the blocks are
// stored again, at most every few seconds, once there is room.
import { isDiskFull } from '../shared/errors.js';
import type { RuntimeCore } from './core.js';
import type { AnyBlock } from './types.js';

const RETRY_MS = 5000;

export class UnsavedBlocks {
  private readonly blocks = new Set<AnyBlock>();
  private lastTry = -Infinity;

  constructor(private readonly rt: RuntimeCore) {}

  /** Persist from inside an update: a full disk is remembered, anything else thrown. */
  persist(block: AnyBlock): void {
    try {
      this.rt.persist(block);
      this.blocks.delete(block);
    } catch (e) {
      if (!isDiskFull(e)) throw e;
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
        if (isDiskFull(e)) return;
        this.rt.log.error({ err: e, id: block.id }, 'storing a block changed by control failed');
      }
      this.blocks.delete(block);
    }
  }
}
