/**
 * Whether `work` finishes within `ms` (its error, if it fails in time, is thrown). A stop waits
 * for the buses, but a read that never returns must not keep it waiting for ever: systemd kills
 * a stop after 15 s.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = work.then(() => true);
  if (!Number.isFinite(ms)) return settled;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}
