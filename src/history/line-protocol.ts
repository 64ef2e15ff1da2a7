// History points as Influx line protocol, the way VictoriaMetrics reads it (run with
// -influxMeasurementFieldSeparator=/, so a metric is named `<measurement>/<field key>`). Names
// are user text (a block id holds whatever the API accepts); this is the one place that writes
// them for VictoriaMetrics, checked against a real one by test/names/names.test.ts.
//
// What VictoriaMetrics' parser does, and so what is written:
// - In a name, a backslash escapes the next character, and space, comma and '=' end a name
//   unless escaped. Quotes, slashes, dots, '%' and any unicode need nothing.
// - In the field part of a line, a double quote opens a quoted (string) value even inside a
//   field key, and a quote escaped with a backslash keeps its backslash in the name: a field key
//   with a quote would swallow the fields after it. The measurement is read without looking at
//   quotes, so a field whose path holds a quote goes on a line of its own measurement, `<key>/<path
//   up to its last '/'>`, with only the last segment as its field key: the metric name is the same.
//   A field whose last segment holds a quote (only other publishers send such) cannot be written.
// - A line that starts with '#' is a comment: a key starting with '#' cannot be written.
// - Control characters cannot be written at all: the ingest never hands them over.
// - A line longer than -influx.maxLineSize (256 KiB by default) fails the whole write: lines are
//   cut to LINE_BYTES, each with the same measurement and time.

/** The longest line written, in bytes. */
export const LINE_BYTES = 64 * 1024;

/** A name (measurement or field key) escaped for line protocol. */
export function lineProtocolName(s: string): string {
  return s.replace(/[\\ ,=]/g, (c) => `\\${c}`);
}

/** Why points of `key` cannot be written, or null. */
export function lineKeyProblem(key: string): string | null {
  return key.startsWith('#') ? "key starts with '#' (a comment in line protocol)" : null;
}

export interface Lines {
  /** Line texts, each with the number of points it carries and its UTF-8 bytes with the newline that ends it in a write. */
  lines: Array<{ text: string; points: number; bytes: number }>;
  /** Fields that cannot be written (a quote in their last path segment). */
  unwritable: string[];
}

/** The lines of one message's points (all stamped `t`, epoch ms). */
export function toLines(key: string, fields: ReadonlyArray<readonly [string, number]>, t: number): Lines {
  const byMeasurement = new Map<string, string[]>();
  const unwritable: string[] = [];
  const add = (measurement: string, field: string, v: number) => {
    let list = byMeasurement.get(measurement);
    if (!list) byMeasurement.set(measurement, (list = []));
    list.push(`${lineProtocolName(field)}=${v}`);
  };
  for (const [f, v] of fields) {
    if (!f.includes('"')) {
      add(key, f, v);
      continue;
    }
    const cut = f.lastIndexOf('/');
    const last = f.slice(cut + 1);
    if (cut < 0 || last.includes('"')) unwritable.push(f);
    else add(`${key}/${f.slice(0, cut)}`, last, v);
  }
  const stamp = `${Math.round(t)}000000`;
  const lines: Lines['lines'] = [];
  for (const [m, values] of byMeasurement) {
    // A message's fields share a line per measurement, cut where it would pass LINE_BYTES: one
    // line too long and VictoriaMetrics refuses the whole write, other publishers' lines with it.
    const head = `${lineProtocolName(m)} `;
    const fixed = Buffer.byteLength(head) + stamp.length + 1;
    let part: string[] = [];
    let bytes = fixed;
    const cut = () => {
      // `bytes` counts a comma after each value: one too many, the newline's place in a write body.
      if (part.length) lines.push({ text: `${head}${part.join(',')} ${stamp}`, points: part.length, bytes });
      part = [];
      bytes = fixed;
    };
    for (const v of values) {
      const size = Buffer.byteLength(v) + 1;
      if (bytes + size > LINE_BYTES) cut();
      part.push(v);
      bytes += size;
    }
    cut();
  }
  return { lines, unwritable };
}
