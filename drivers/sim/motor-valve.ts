// An emulated motorised ball valve on four DS2408 channels (the valve board's wiring): from the
// start channel c, c+0 and c+1 are end switches that pull their pin low when the valve is fully
// closed / fully open, c+2 and c+3 are the two inputs of the motor's H-bridge. The bridge inputs
// are pulled up, so an active latch (transistor on) makes its input low: the motor opens while
// c+3 is low and c+2 is not, closes while c+2 is low and c+3 is not, and stops otherwise. At
// either end the valve's own end stop halts it. Knows nothing of blocks.

export interface SimMotorValveOptions {
  /** 1-based start channel (1 or 5 on the board). */
  start: number;
  /** Seconds for a full stroke. */
  travelSeconds?: number;
  /** Initial opening, 0 (closed) .. 1 (open). */
  position?: number;
}

export class SimMotorValve {
  readonly start: number;
  readonly travelSeconds: number;
  /** 0 = closed .. 1 = open. */
  position: number;

  constructor(options: SimMotorValveOptions) {
    this.start = options.start;
    this.travelSeconds = options.travelSeconds ?? 6;
    this.position = Math.min(1, Math.max(0, options.position ?? 0));
  }

  private bit(offset: number): number {
    return 1 << (this.start - 1 + offset);
  }

  /** Motor direction from the latches that are on (bit n = channel n+1). */
  direction(activeOutputs: number): -1 | 0 | 1 {
    const openLow = (activeOutputs & this.bit(3)) !== 0;
    const closeLow = (activeOutputs & this.bit(2)) !== 0;
    if (openLow && !closeLow) return 1;
    if (closeLow && !openLow) return -1;
    return 0;
  }

  /** Move for `dt` seconds under the given latches. */
  step(dt: number, activeOutputs: number): void {
    const dir = this.direction(activeOutputs);
    this.position = Math.min(1, Math.max(0, this.position + (dir * dt) / this.travelSeconds));
  }

  /** The end switch pins this valve pulls low now. */
  switchesLow(): number {
    return (this.position <= 0 ? this.bit(0) : 0) | (this.position >= 1 ? this.bit(1) : 0);
  }

  /** All four channels of this valve. */
  get mask(): number {
    return 0xf << (this.start - 1);
  }
}
