// The datastore `filter` glob, with Redis KEYS semantics: `*` any run (`:` included), `?` one
// character, `[abc]`, `[a-z]`, `[^abc]` classes, `\` escapes the next character. `:` means
// nothing special. An unterminated `[` runs to the end of the pattern, as in Redis.

// With the `u` flag only syntax characters may be escaped (and `-` only inside a class).
const escapeRe = (ch: string, inClass = false) => (/[\\^$.*+?()[\]{}|\/]/.test(ch) || (inClass && ch === '-') ? `\\${ch}` : ch);

/** Compile a glob to a RegExp anchored on the whole string. */
export function globToRegExp(glob: string): RegExp {
  const chars = Array.from(glob);
  let re = '';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '*') {
      while (chars[i + 1] === '*') i++;
      re += '.*';
    } else if (ch === '?') {
      re += '.';
    } else if (ch === '\\') {
      // A trailing backslash matches itself (Redis).
      re += escapeRe(i + 1 < chars.length ? chars[++i]! : '\\');
    } else if (ch === '[') {
      const [cls, next] = charClass(chars, i + 1);
      re += cls;
      i = next;
    } else {
      re += escapeRe(ch);
    }
  }
  return new RegExp(`^${re}$`, 'su');
}

/** Parse a class starting after `[`; returns the RegExp class and the index of its `]` (or the last index). */
function charClass(chars: string[], start: number): [string, number] {
  let i = start;
  const negate = chars[i] === '^';
  if (negate) i++;
  const parts: string[] = [];
  for (; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === ']') break;
    if (ch === '\\' && i + 1 < chars.length) {
      parts.push(escapeRe(chars[++i]!, true));
    } else if (i + 2 < chars.length && chars[i + 1] === '-') {
      // Redis swaps a reversed range instead of rejecting it.
      let lo = ch;
      let hi = chars[i + 2]!;
      if (lo.codePointAt(0)! > hi.codePointAt(0)!) [lo, hi] = [hi, lo];
      parts.push(`${escapeRe(lo, true)}-${escapeRe(hi, true)}`);
      i += 2;
    } else {
      parts.push(escapeRe(ch, true));
    }
  }
  const end = Math.min(i, chars.length - 1);
  // An empty class matches nothing; negated, it matches any one character.
  if (parts.length === 0) return [negate ? '.' : '[^\\s\\S]', end];
  return [`[${negate ? '^' : ''}${parts.join('')}]`, end];
}

/** A matcher for `glob` (compiled once). */
export function globMatcher(glob: string): (s: string) => boolean {
  const re = globToRegExp(glob);
  return (s) => re.test(s);
}
