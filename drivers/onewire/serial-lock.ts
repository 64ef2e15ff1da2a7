// Runs async jobs one at a time, in call order, so bus transactions never interleave.
export class SerialLock {
  private tail: Promise<unknown> = Promise.resolve();
  private depth = 0;

  get busy(): boolean {
    return this.depth > 0;
  }

  run<T>(job: () => Promise<T>): Promise<T> {
    this.depth++;
    const result = this.tail.then(
      () => job(),
      () => job(),
    );
    this.tail = result.then(
      () => this.depth--,
      () => this.depth--,
    );
    return result;
  }
}
