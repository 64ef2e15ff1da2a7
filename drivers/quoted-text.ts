// The one rule of how much of a user's text a message quotes. A refusal names what the body
// held (an id, a type, a key, a value), and a body may be a megabyte: quoted whole, a name of
// that size came back twice (in the message and in the issue). Portable (no imports): the route
// schemas' wording (drivers/schema-check.ts), the block codec and the runtime's refusals share it.

/** Longest quoted text in a message, in characters, unless the caller's rule allows a longer name. */
export const QUOTE_LIMIT = 80;

/**
 * `text` as a message quotes it: whole up to `limit` characters (a name the API takes stays
 * exactly as sent, so it can be copied), else its first `limit` characters and "...". Cut between
 * characters, never between the two halves of one outside the BMP.
 */
export function quotedText(text: string, limit = QUOTE_LIMIT): string {
  if (text.length <= limit) return text;
  const chars = Array.from(text);
  return chars.length <= limit ? text : `${chars.slice(0, limit).join('')}...`;
}
