// A number as a person types it, one rule for every form of the page: a comma is a decimal
// point too ("18,5"), spaces around it do not count. Pure, no imports (the first view uses it).

/** The number typed: null when the text is empty, NaN (or ±Infinity) when it is not a usable number. */
export function typedNumber(text: string): number | null {
  const t = text.trim();
  return t === '' ? null : Number(t.replace(',', '.'));
}
