// Where an idle process spends its CPU: a V8 .cpuprofile (node --cpu-prof) summarised by the
// outermost function of the service's own code on each sampled stack (the tick, the state
// emission, history ingest, ...), so time in fastify, mqtt or Node's internals counts for the
// part of the service that called it. Samples with the emulated hardware (drivers/sim) on their
// stack count for the emulation, apart from the service. Only samples of the window after `skipMs` (start-up) count;
// idle samples are not counted.
export interface ProfileShare {
  part: string;
  /** Percent of one core over the profiled window. */
  percentOfCore: number;
  /** Percent of the non-idle samples. */
  share: number;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const OWN = /\/dist\/(src|drivers|bundle)\//;
const EMULATION = /\/dist\/drivers\/sim\//;
export const EMULATION_PART = 'the emulated hardware (drivers/sim)';
const IDLE = new Set(['(idle)', '(program)']);

export function summariseProfile(profile: CpuProfile, skipMs: number, windowMs: number, top = 12): ProfileShare[] {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const partOf = new Map<number, string>();
  const part = (id: number): string => {
    const known = partOf.get(id);
    if (known) return known;
    let outer: string | null = null;
    let emulated = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (OWN.test(f.url)) outer = `${f.functionName || '(anonymous)'} (${f.url.replace(/^.*\/dist\//, '')})`;
      if (EMULATION.test(f.url)) emulated = true;
    }
    if (emulated) outer = EMULATION_PART;
    const leaf = byId.get(id)!.callFrame.functionName;
    const name = outer ?? (leaf.startsWith('(') ? leaf : 'node and libraries, not called from the service');
    partOf.set(id, name);
    return name;
  };
  const micros = new Map<string, number>();
  let t = 0;
  let busy = 0;
  const skipUs = skipMs * 1000;
  const endUs = skipUs + windowMs * 1000;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (t < skipUs || t > endUs) return;
    const name = byId.get(id)!.callFrame.functionName;
    if (IDLE.has(name)) return;
    const p = part(id);
    micros.set(p, (micros.get(p) ?? 0) + dt);
    busy += dt;
  });
  const windowUs = Math.max(1, Math.min(profile.endTime - profile.startTime, endUs) - skipUs);
  return [...micros.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([p, us]) => ({ part: p, percentOfCore: (100 * us) / windowUs, share: busy ? (100 * us) / busy : 0 }));
}
