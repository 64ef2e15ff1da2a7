// The graph's field picker: a search, then one section per controller (this one first and open,
// the others closed: the history may hold every controller on the broker), each field a
// checkbox under its block.
import { useState } from 'preact/hooks';
import { fieldWords, groupFields, type FieldParts } from './graph-fields';

export function FieldPicker({
  all,
  own,
  fields,
  setFields,
  known,
}: {
  all: string[];
  own: string;
  fields: string[];
  setFields: (f: string[]) => void;
  known: (p: FieldParts) => string | null;
}) {
  const [search, setSearch] = useState('');
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = all.filter((f) => words.every((w) => f.toLowerCase().includes(w)));
  const controllers = groupFields(shown, own);
  const chosen = (list: string[]) => list.filter((f) => fields.includes(f)).length;
  return (
    <div class="picker" data-testid="field-picker">
      <label>
        Search fields{' '}
        <input
          type="search"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          placeholder="e.g. beer setting"
        />
      </label>
      {controllers.map(([controller, blocks]) => {
        const list = blocks.flatMap(([, f]) => f);
        return (
          <details
            class="controller-fields"
            data-controller={controller}
            // Another controller's fields open by a click (or while a search narrows the list).
            open={controller === own || words.length > 0 || chosen(list) > 0}
          >
            <summary>
              {controller === own ? `This controller (${controller})` : controller || 'Other fields'}{' '}
              <span class="muted">
                {chosen(list)} of {list.length} drawn
              </span>
            </summary>
            {blocks.map(([block, list]) => (
              <fieldset class="fieldlist" data-group={block}>
                <legend>
                  {controller !== own && controller ? `${controller} · ` : ''}
                  {block}
                </legend>
                {list.map((f) => (
                  <label>
                    <input
                      type="checkbox"
                      data-field={f}
                      checked={fields.includes(f)}
                      onChange={(e) =>
                        setFields(
                          (e.target as HTMLInputElement).checked ? [...fields, f] : fields.filter((x) => x !== f),
                        )
                      }
                    />{' '}
                    {fieldWords(f, known)}
                  </label>
                ))}
              </fieldset>
            ))}
          </details>
        );
      })}
      {!shown.length && <p class="muted">No field matches “{search}”.</p>}
    </div>
  );
}
