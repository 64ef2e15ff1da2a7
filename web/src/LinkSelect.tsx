// A link's picker: the blocks that fit, and the block it links to now also when that one does not
// fit or is missing (deleted: blocks/delete's `dangling`), marked so, instead of an empty choice
// that hides what the block is linked to; and the word said beside a missing one.
import { missingLinkWords } from './blocks';

export function LinkSelect({
  name,
  value,
  targets,
  empty,
  exists,
  set,
}: {
  name: string;
  value: string;
  /** The blocks the link may point to. */
  targets: string[];
  /** The first choice's words: "(none)", "choose…". */
  empty: string;
  exists: (id: string) => boolean;
  set: (id: string) => void;
}) {
  const outside = value !== '' && !targets.includes(value);
  return (
    <select name={name} value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
      <option value="">{empty}</option>
      {outside && <option value={value}>{exists(value) ? value : `${value} (missing)`}</option>}
      {targets.map((id) => (
        <option value={id}>{id}</option>
      ))}
    </select>
  );
}

/** Beside a link picker whose block is missing: what is wrong and what to do. */
export function MissingLink({ name, value, exists }: { name: string; value: string; exists: (id: string) => boolean }) {
  if (value === '' || exists(value)) return null;
  return (
    <span class="field-error" data-testid={`dangling-${name}`}>
      {missingLinkWords(value)} (deleted): pick another
    </span>
  );
}
