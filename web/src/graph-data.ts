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

/**
 * The columns of `fields` from columns `cols` of `asked` (the fields and their earlier names): a
 * field with an earlier name (`earlier`, field → name) takes that name's points, each by
 * `convert(value, field, earlier name)`, where it has none of its own. Rows left with no point
 * in any field are dropped.
 */
export function filledFrom(
  fields: string[],
  asked: string[],
  cols: Columns,
  earlier: ReadonlyMap<string, string>,
  convert: (value: number, field: string, from: string) => number | null,
): Columns {
  const out = fields.map((f) => {
    const own = cols[asked.indexOf(f) + 1]!;
    const from = earlier.get(f);
    const before = from === undefined ? -1 : asked.indexOf(from);
    if (before < 0 || from === undefined) return own;
    const theirs = cols[before + 1]!;
    return own.map((v, i) => {
      const e = theirs[i];
      return v !== null || e === null || e === undefined ? v : convert(e, f, from);
    });
  });
  const keep = cols[0].map((_, i) => out.some((c) => c[i] !== null));
  return [cols[0].filter((_, i) => keep[i]), ...out.map((c) => c.filter((_, i) => keep[i]))];
}

/** Temperatures on the left axis, everything else (%, states) on the right. */
export const isTemperature = (field: string): boolean => /\[(deg[CF]|delta_deg[CF])\]$/.test(field);

export function dropBefore(cols: Columns, t0: number): Columns {
  const i = cols[0].findIndex((t) => t >= t0);
  if (i <= 0) return cols;
  return cols.map((c) => c.slice(i)) as Columns;
}
