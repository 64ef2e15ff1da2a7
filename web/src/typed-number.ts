// A number as a person types it, one rule for every form of the page: a comma is a decimal
// point too ("18,5"), spaces around it do not count, and only decimal notation is a number
// (JavaScript's Number() would read "0x10" as 16, a value the field never showed). Pure, no
// imports (the first view uses it).

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** The number typed: null when the text is empty, NaN (or ±Infinity) when it is not a usable number. */
export function typedNumber(text: string): number | null {
  const t = text.trim().replace(',', '.');
  if (t === '') return null;
  return DECIMAL.test(t) ? Number(t) : Number.NaN;
}

/** A typed number, or the text itself (sent so that the service's 422 names the field). */
export function numberOrText(text: string): number | string {
  const n = typedNumber(text);
  return n !== null && Number.isFinite(n) ? n : text;
}
