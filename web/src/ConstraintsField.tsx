// The constraints of an output, edited as constraints: one row each (minimum on/off time,
// delays, a mutex, limits, a balancer), switched on with a checkbox, its settings beside it and
// what it does now under it. The rows and their settings come from the type's schema.
import type { Block } from './block-types.js';
import {
  CONSTRAINT_WORDS,
  type Constraint,
  type ConstraintDraft,
  constraintState,
  draftOf,
  settingLabel,
  settingsOf,
} from './constraints.js';
import { kindOf, linkInterface } from './field-kinds.js';
import { LinkSelect, MissingLink } from './LinkSelect.js';
import type { Schema } from './type-doc.js';

const title = (name: string) => {
  const w = CONSTRAINT_WORDS[name] ?? name;
  return w.charAt(0).toUpperCase() + w.slice(1);
};

export function ConstraintsField({
  name,
  schema,
  block,
  blocks,
  drafts,
  setDrafts,
  linkTargets,
  unit,
}: {
  /** The field (`constraints`), for names and test ids. */
  name: string;
  schema: Schema;
  block?: Block;
  blocks: Map<string, Block>;
  drafts: Record<string, ConstraintDraft>;
  setDrafts: (d: Record<string, ConstraintDraft>) => void;
  linkTargets: (iface: string | null) => string[];
  /** The unit of a limit's value (the output's setting), e.g. "%". */
  unit: string;
}) {
  const current = (block?.data[name] ?? {}) as Record<string, Constraint>;
  return (
    <fieldset class="constraints" data-testid={`field-${name}`}>
      <legend>Constraints</legend>
      {Object.entries(schema.properties ?? {}).map(([key, member]) => {
        const d = drafts[key] ?? draftOf(member, current[key]);
        const set = (next: ConstraintDraft) => setDrafts({ ...drafts, [key]: next });
        const state = block ? constraintState(key, current[key], block.id, blocks) : null;
        return (
          <div class={`constraint ${d.on ? 'on' : ''}`} data-constraint={key}>
            <label class="toggle">
              <input
                type="checkbox"
                name={`${name}.${key}`}
                checked={d.on}
                onChange={(e) => set({ ...d, on: (e.target as HTMLInputElement).checked })}
              />{' '}
              {title(key)}
            </label>
            {d.on &&
              settingsOf(member).map(([k, s]) => {
                const kind = kindOf(s);
                const label = settingLabel(key, k);
                const value = d.values[k] ?? '';
                const put = (v: string) => set({ ...d, values: { ...d.values, [k]: v } });
                if (kind === 'link')
                  return (
                    <label class="setting">
                      {label}{' '}
                      <LinkSelect
                        name={`${name}.${key}.${k}`}
                        value={value}
                        targets={linkTargets(linkInterface(s))}
                        empty="choose…"
                        exists={(id) => blocks.has(id)}
                        set={put}
                      />
                      <MissingLink name={`${name}.${key}.${k}`} value={value} exists={(id) => blocks.has(id)} />
                    </label>
                  );
                return (
                  <label class="setting">
                    {label}{' '}
                    <input
                      name={`${name}.${key}.${k}`}
                      value={value}
                      inputMode={kind === 'duration' ? undefined : 'decimal'}
                      placeholder={kind === 'duration' ? 'e.g. 5 min' : undefined}
                      onInput={(e) => put((e.target as HTMLInputElement).value)}
                    />
                    {kind !== 'duration' && unit && <span class="unit">{unit}</span>}
                  </label>
                );
              })}
            {state && (
              <span class="constraint-state" data-testid={`constraint-state-${key}`}>
                {state}
              </span>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
