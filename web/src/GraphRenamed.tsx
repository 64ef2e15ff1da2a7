// The graph's notice of the renamed blocks it follows: the new name's fields are drawn, and the
// history from before the rename stays under the old name, which the graph draws beside them in
// the same colour until the user takes those lines off.
import { serviceId } from './api';
import { dropFormer, formerOf, type GraphMemory } from './graph-renames';

export function Renamed({
  fields,
  memory,
  setFields,
}: {
  fields: string[];
  memory: GraphMemory;
  setFields: (f: string[]) => void;
}) {
  const own = serviceId();
  const drawn = new Map<string, string>();
  for (const f of fields) {
    const former = formerOf(f, own, memory);
    if (former) drawn.set(...former);
  }
  if (!drawn.size) return null;
  return (
    <ul class="banner renamed" data-testid="graph-renamed">
      {[...drawn].map(([old, now]) => (
        <li>
          "<span class="id">{old}</span>" was renamed to "<span class="id">{now}</span>": the graph follows it. Its
          history from before the rename stays under the old name, drawn in the same colour ("
          <span class="id">
            {old} (now {now})
          </span>
          ").{' '}
          <button type="button" onClick={() => setFields(dropFormer(fields, own, memory, old))}>
            Take "{old}" off the graph
          </button>
        </li>
      ))}
    </ul>
  );
}
