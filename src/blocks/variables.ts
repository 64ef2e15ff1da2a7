// Variables: named values that Sequence instructions refer to as `$name` (reference §5.6).
// Each entry holds exactly one of the kinds below; a patch merges by name, and writing
// `{empty: true}` (or null) for a name deletes it. Every change bumps `version`, from which
// sequences know to re-resolve their current instruction.
import { f } from '../codec/fields.js';
import { defineBlock } from '../runtime/types.js';
import type { Linked } from '../runtime/interfaces.js';
import { digitalState } from './shared/fields.js';

export const VARIABLE_NAME = /^[A-Za-z0-9_-]{1,16}$/;

export const variableValue = f.variant({
  empty: f.bool({ stored: true }),
  digital: digitalState({ stored: true }),
  analog: f.number({ stored: true }),
  temp: f.temp({ stored: true }),
  deltaTemp: f.deltaTemp({ stored: true }),
  timestamp: f.datetime({ stored: true }),
  duration: f.duration({ stored: true }),
  link: f.link('Any', { stored: true }),
});

const fields = {
  variables: f.map(variableValue, {
    stored: true,
    maxItems: 64,
    keyPattern: VARIABLE_NAME,
    keyHint: 'names are 1-16 characters of A-Z a-z 0-9 _ -',
    description: 'name -> {empty | digital | analog | temp | deltaTemp | timestamp | duration | link}',
  }),
};

export type VariableValue = Partial<{
  empty: boolean;
  digital: string;
  analog: number | null;
  temp: number | null;
  deltaTemp: number | null;
  timestamp: number | null;
  duration: number | null;
  link: string | null;
}>;

export interface VariablesState {
  /** Bumped on every write; sequences compare it with the version they resolved against. */
  version: number;
}

export const Variables = defineBlock<typeof fields, VariablesState>({
  type: 'Variables',
  role: 'controller',
  fields,
  implements: [],
  description: 'Named values for Sequence instructions',
  init: () => ({ version: 0 }),
  onWrite(block) {
    const vars = block.data.variables as Record<string, VariableValue>;
    for (const [name, v] of Object.entries(vars)) if ('empty' in v) delete vars[name];
    block.state.version++;
  },
});

/** The variable `name` of a Variables block, or undefined when it is not defined. */
export function variableOf(block: Linked<'Variables'> | null, name: string): VariableValue | undefined {
  const vars = block?.data.variables;
  return vars && Object.hasOwn(vars, name) ? vars[name] : undefined;
}
