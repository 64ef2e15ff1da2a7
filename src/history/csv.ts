// CSV cells of the history export (RFC 4180, as Python's csv module writes them, QUOTE_MINIMAL):
// a cell holding a comma, a double quote or a line break is quoted, its quotes doubled. Field
// names are user text (a block id, or the key of any client publishing history, may hold any of
// them). A text cell is also kept from being read as a formula (OWASP CSV injection): one that
// starts with =, +, -, @, tab or carriage return gets a single quote before it, which Excel and
// LibreOffice take as "text". The values are numbers and are not written through here: -1.5
// stays a number.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One text cell: kept from being a formula, quoted where RFC 4180 asks. */
export function csvCell(text: string): string {
  const cell = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** One CSV line of text `cells`, ended. */
export const csvLine = (cells: readonly string[]): string => `${cells.map(csvCell).join(',')}\n`;
