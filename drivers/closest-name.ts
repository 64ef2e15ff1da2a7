// "Did you mean ...?" for unknown keys in config files: the known name closest to a typo.

/** Levenshtein distance (insert, delete, substitute: 1 each). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** The known name nearest to `name` (a case slip counts as nothing), or undefined when none is near. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d =
      candidate.toLowerCase() === name.toLowerCase() ? 0 : editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** "unknown key; did you mean "activeLow"? known: name, line, ..." (or "unknown key; known: ...") */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  if (!known.length) return 'unknown key: none is taken here';
  const near = closestName(key, known);
  return `unknown key;${near ? ` did you mean "${near}"?` : ''} known: ${known.join(', ')}`;
}

/** The first key of `o` that is not in `known`, if any. */
export function firstUnknownKey(o: object, known: readonly string[]): string | undefined {
  return Object.keys(o).find((k) => !known.includes(k));
}
