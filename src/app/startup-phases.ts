// Where start-up time goes: each mark records the milliseconds since the previous one. The
// first phase, 'module load', runs from process start (performance.timeOrigin) to createApp.
export class StartupPhases {
  readonly ms: Record<string, number> = {};
  private last = 0;

  mark(phase: string): void {
    const now = performance.now();
    this.ms[phase] = Math.round((now - this.last) * 10) / 10;
    this.last = now;
  }
}
