// Numbers as the tuning's messages show them.
export const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

/** A duration in seconds: minutes below an hour and a half, else hours. */
export const hours = (s: number) => (s >= 5400 ? `${round(s / 3600, 1)} h` : `${Math.round(s / 60)} min`);
