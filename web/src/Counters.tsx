// Error counters of a bus or a chip in words: each one above zero with what to do; otherwise
// "No errors", with the plain counts (searches, writes) that are above zero.
import { counterWords } from './hardware-words';

export function Counters({ of, names }: { of: Record<string, unknown>; names: string[] }) {
  const counted = names.filter((c) => typeof of[c] === 'number' && (of[c] as number) > 0);
  const bad = counted.filter((c) => counterWords(c).help);
  const plain = counted.filter((c) => !bad.includes(c));
  return (
    <div class="counters">
      {bad.map((c) => (
        <div class="bad" data-counter={c}>
          {counterWords(c).title}: <span class="count">{String(of[c])}</span>
          <span class="help"> — {counterWords(c).help}</span>
        </div>
      ))}
      {(!bad.length || plain.length > 0) && (
        <div class="muted">
          {!bad.length && 'No errors'}
          {plain.map((c, i) => (
            <span data-counter={c}>
              {i || !bad.length ? ' · ' : ''}
              <span class="count">{String(of[c])}</span> {counterWords(c).title.toLowerCase()}
            </span>
          ))}
        </div>
      )}
    </div>
  );
}
