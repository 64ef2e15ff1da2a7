// Least squares for a handful of unknowns, from the normal equations: `Gram` accumulates X'X
// and X'y one row at a time, `solve` returns the coefficients and the sum of squared errors.
// A tiny ridge keeps nearly collinear columns (a slow exponential and a constant) solvable.

const RIDGE = 1e-10;

export class Gram {
  readonly xx: Float64Array;
  readonly xy: Float64Array;
  yy = 0;
  rows = 0;

  constructor(readonly size: number) {
    this.xx = new Float64Array(size * size);
    this.xy = new Float64Array(size);
  }

  add(x: ArrayLike<number>, y: number): void {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      if (xi === 0) continue;
      this.xy[i]! += xi * y;
      for (let j = i; j < n; j++) this.xx[i * n + j]! += xi * x[j]!;
    }
    this.yy += y * y;
    this.rows++;
  }

  /** Coefficients and the residual sum of squares; null when the system is degenerate. */
  solve(): { beta: number[]; sse: number } | null {
    const n = this.size;
    const a = new Float64Array(n * (n + 1));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) a[i * (n + 1) + j] = i <= j ? this.xx[i * n + j]! : this.xx[j * n + i]!;
      a[i * (n + 1) + i]! += RIDGE * Math.max(this.xx[i * n + i]!, 1e-300);
      a[i * (n + 1) + n] = this.xy[i]!;
    }
    // Gaussian elimination with partial pivoting.
    for (let c = 0; c < n; c++) {
      let p = c;
      for (let r = c + 1; r < n; r++) if (Math.abs(a[r * (n + 1) + c]!) > Math.abs(a[p * (n + 1) + c]!)) p = r;
      const pivot = a[p * (n + 1) + c]!;
      if (!Number.isFinite(pivot) || Math.abs(pivot) < 1e-300) return null;
      if (p !== c)
        for (let k = 0; k <= n; k++) {
          const tmp = a[c * (n + 1) + k]!;
          a[c * (n + 1) + k] = a[p * (n + 1) + k]!;
          a[p * (n + 1) + k] = tmp;
        }
      for (let r = c + 1; r < n; r++) {
        const f = a[r * (n + 1) + c]! / pivot;
        if (f === 0) continue;
        for (let k = c; k <= n; k++) a[r * (n + 1) + k]! -= f * a[c * (n + 1) + k]!;
      }
    }
    const beta = new Array<number>(n).fill(0);
    for (let r = n - 1; r >= 0; r--) {
      let s = a[r * (n + 1) + n]!;
      for (let k = r + 1; k < n; k++) s -= a[r * (n + 1) + k]! * beta[k]!;
      beta[r] = s / a[r * (n + 1) + r]!;
    }
    if (!beta.every(Number.isFinite)) return null;
    // SSE = y'y - 2 b'X'y + b'X'X b
    let sse = this.yy;
    for (let i = 0; i < n; i++) {
      sse -= 2 * beta[i]! * this.xy[i]!;
      for (let j = 0; j < n; j++) sse += beta[i]! * beta[j]! * (i <= j ? this.xx[i * n + j]! : this.xx[j * n + i]!);
    }
    return { beta, sse: Math.max(0, sse) };
  }
}
