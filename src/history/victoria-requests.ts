// What the VictoriaMetrics store sends and reads besides the line protocol: PromQL string
// literals, export selectors in forms VictoriaMetrics reads, answers read up to a size.

/** The text of an answer, or null (the rest left unread) once it is over `maxBytes`. */
export async function textUpTo(res: Response, maxBytes: number): Promise<string | null> {
  if (!res.body) return res.text();
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** VictoriaMetrics (Go) reads a form of at most 10 MiB: an export asks for its fields in forms of at most this. */
export const VICTORIA_FORM_BYTES = 4 * 1024 * 1024;

/** The `match[]` selectors of `fields` as form texts, each within VICTORIA_FORM_BYTES. */
export function selectorForms(fields: string[]): string[] {
  const forms: string[][] = [];
  let size = Infinity;
  for (const f of fields) {
    const m = `match[]=${encodeURIComponent(`{__name__=${promString(f)}}`)}`;
    if (size + m.length + 1 > VICTORIA_FORM_BYTES) {
      forms.push([]);
      size = 0;
    }
    forms.at(-1)!.push(m);
    size += m.length + 1;
  }
  return forms.map((f) => f.join('&'));
}

/** A string literal of PromQL (MetricsQL): backslash and double quote escaped. */
export function promString(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
