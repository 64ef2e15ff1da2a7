// The datastore `filter` glob, with Redis KEYS semantics: `*` any run (`:` included), `?` one
// character, `[abc]`, `[a-z]`, `[^abc]` classes, `\` escapes the next character. `:` means
// nothing special. An unterminated `[` runs to the end of the pattern, as in Redis.
//
// Matching is by code point and runs in O(text × pattern) at worst: every token other than `*`
// consumes exactly one character, so only the most recent `*` ever needs to be retried. (A
// RegExp of `.*` runs backtracks exponentially on e.g. `*a*a*a*a*b`, which would freeze the
// controller's single thread.)

/** One pattern element: a `*`, or a test on one code point. */
type Token = { star: true } | { star: false; test: (cp: number) => boolean };

const cp = (ch: string) => ch.codePointAt(0)!;

/** Parse a glob into tokens; runs of `*` collapse into one. */
function tokenize(glob: string): Token[] {
  const chars = Array.from(glob);
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '*') {
      while (chars[i + 1] === '*') i++;
      tokens.push({ star: true });
    } else if (ch === '?') {
      tokens.push({ star: false, test: () => true });
    } else if (ch === '[') {
      const [test, next] = charClass(chars, i + 1);
      tokens.push({ star: false, test });
      i = next;
    } else {
      // `\` escapes the next character; a trailing backslash matches itself (Redis).
      const lit = cp(ch === '\\' && i + 1 < chars.length ? chars[++i]! : ch);
      tokens.push({ star: false, test: (c) => c === lit });
    }
  }
  return tokens;
}

/** Parse a class starting after `[`; returns its test and the index of its `]` (or the last index). */
function charClass(chars: string[], start: number): [(cp: number) => boolean, number] {
  let i = start;
  const negate = chars[i] === '^';
  if (negate) i++;
  const ranges: [lo: number, hi: number][] = [];
  for (; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === ']') break;
    if (ch === '\\' && i + 1 < chars.length) {
      const c = cp(chars[++i]!);
      ranges.push([c, c]);
    } else if (i + 2 < chars.length && chars[i + 1] === '-') {
      // Redis swaps a reversed range instead of rejecting it.
      const a = cp(ch);
      const b = cp(chars[i + 2]!);
      ranges.push(a <= b ? [a, b] : [b, a]);
      i += 2;
    } else {
      const c = cp(ch);
      ranges.push([c, c]);
    }
  }
  const end = Math.min(i, chars.length - 1);
  // An empty class matches nothing; negated, it matches any one character.
  const test = (c: number) => ranges.some(([lo, hi]) => c >= lo && c <= hi) !== negate;
  return [test, end];
}

/** Whether `tokens` match all of `text` (code points). Greedy with one retry point, O(n × m). */
function matchTokens(tokens: Token[], text: number[]): boolean {
  let t = 0; // next token
  let s = 0; // next character
  let starT = -1; // token index after the last `*` seen
  let starS = 0; // where that `*`'s run currently ends
  while (s < text.length) {
    const tok = tokens[t];
    if (tok !== undefined && tok.star) {
      starT = ++t;
      starS = s;
    } else if (tok !== undefined && tok.test(text[s]!)) {
      t++;
      s++;
    } else if (starT >= 0) {
      // Let the last `*` take one more character and retry what follows it.
      t = starT;
      s = ++starS;
    } else {
      return false;
    }
  }
  // The text is used up: only `*` may remain.
  while (t < tokens.length && tokens[t]!.star) t++;
  return t === tokens.length;
}

/** A matcher for `glob` (parsed once) on the whole string. */
export function globMatcher(glob: string): (s: string) => boolean {
  const tokens = tokenize(glob);
  return (s) => matchTokens(tokens, Array.from(s, cp));
}
