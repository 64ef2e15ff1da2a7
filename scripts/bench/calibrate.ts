// A fixed piece of the work an idle controller does (encode 200 block-like objects to JSON, parse
// them back, a little floating point), timed: the ratio of its time on a Pi to its time here
// scales this machine's idle CPU figure to a Pi-class one. Run on the Pi:
//   node dist/scripts/bench/calibrate.js        -> prints "calibration: N ms"
// and give that to the bench here: PI_CALIBRATION_MS=N npm run bench
const BLOCKS = Array.from({ length: 200 }, (_, i) => ({
  id: `sensor ${i}`,
  nid: 100 + i,
  type: 'TempSensorMock',
  serviceId: 'edge-one',
  data: {
    value: { __bloxtype: 'Quantity', unit: 'degC', value: 20 + i / 100 },
    connected: true,
    setting: { __bloxtype: 'Quantity', unit: 'degC', value: 20 },
    fluctuations: [{ amplitude: 0.5, period: 600 }],
  },
}));

/** Milliseconds for one round of the workload, the median of `rounds`. */
export function calibrationMs(rounds = 7): number {
  const times: number[] = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let k = 0; k < 50; k++) {
      const text = JSON.stringify(BLOCKS);
      const back = JSON.parse(text) as typeof BLOCKS;
      for (const b of back) sink += Math.sin(b.nid * k) * b.data.value.value;
    }
    times.push(performance.now() - t0);
  }
  if (Number.isNaN(sink)) throw new Error('unreachable');
  return times.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
}

/**
 * How many times slower a Pi-class core is than this one. Measured when the Pi's calibration time
 * is given (PI_CALIBRATION_MS); otherwise the published single-core gap of a Pi 4 (Cortex-A72,
 * 1.5 GHz) to a current x86 server core, about 4.5x, an estimate and said so.
 */
export function piFactor(
  hereMs: number,
  piMs = Number(process.env.PI_CALIBRATION_MS),
): { factor: number; measured: boolean } {
  if (Number.isFinite(piMs) && piMs > 0) return { factor: piMs / hereMs, measured: true };
  return { factor: 4.5, measured: false };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  calibrationMs(3); // warm up the JIT as the service's code is warm
  console.log(`calibration: ${calibrationMs().toFixed(2)} ms`);
}
