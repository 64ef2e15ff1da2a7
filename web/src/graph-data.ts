// Turns /history/timeseries/ranges answers into uPlot's aligned columns and merges live
// appends. One x column (unix seconds) shared by all fields; null where a field has no point.
export interface Range {
  metric: { __name__: string };
  values: Array<[number, string]>;
}

export type Columns = [number[], ...Array<Array<number | null>>];

export function align(fields: string[], ranges: Range[], previous?: Columns): Columns {
  const rows = new Map<number, Array<number | null>>();
  const row = (t: number) => {
    let r = rows.get(t);
    if (!r) rows.set(t, (r = fields.map(() => null)));
    return r;
  };
  if (previous) previous[0].forEach((t, i) => fields.forEach((_, f) => (row(t)[f] = previous[f + 1]![i] ?? null)));
  for (const r of ranges) {
    const f = fields.indexOf(r.metric.__name__);
    if (f < 0) continue;
    for (const [t, v] of r.values) {
      const n = Number(v);
      row(t)[f] = Number.isFinite(n) ? n : null;
    }
  }
  const times = [...rows.keys()].sort((a, b) => a - b);
  return [times, ...fields.map((_, f) => times.map((t) => rows.get(t)![f]!))];
}

/** Temperatures on the left axis, everything else (%, states) on the right. */
export const isTemperature = (field: string): boolean => /\[(deg[CF]|delta_deg[CF])\]$/.test(field);

export function dropBefore(cols: Columns, t0: number): Columns {
  const i = cols[0].findIndex((t) => t >= t0);
  if (i <= 0) return cols;
  return cols.map((c) => c.slice(i)) as Columns;
}
