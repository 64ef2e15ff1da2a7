// One knob for slow machines: EDGEBLOCKS_TEST_SLOWDOWN multiplies every start and wait limit in
// the tests (default 1). A slow Pi or an emulated arm64 userland might need 4 or more.
const raw = process.env.EDGEBLOCKS_TEST_SLOWDOWN;

function parseSlowdown(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 1;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1) {
    throw new Error(
      `EDGEBLOCKS_TEST_SLOWDOWN must be a number >= 1 (a multiplier for start and wait limits), got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

export const SLOWDOWN = parseSlowdown(raw);

/** A start or wait limit, scaled for this machine. */
export function limit(ms: number): number {
  return Math.round(ms * SLOWDOWN);
}
