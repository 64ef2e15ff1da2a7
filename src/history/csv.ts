// CSV cells of the history export (RFC 4180, as Python's csv module writes them, QUOTE_MINIMAL):
// a cell holding a comma, a double quote or a line break is quoted, its quotes doubled. Field
// names are user text (a block id may hold any of them).
export function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV line of `cells`, ended. */
export const csvLine = (cells: readonly string[]): string => `${cells.map(csvCell).join(',')}\n`;
