// What a decoded partial (decode.ts) does to block data: write semantics (complete), patch
// semantics (merge), the writable projection, read-only values carried over (withReadonly), a
// block's own stored read-only values (overlayOwned) and the sorting of the issues of what a
// block kept (sortKeptIssues).
import { defaultValue, leaveOut, ownedRoot, type FieldTable } from './fields.js';
import { isPlainObject, RESET, type Partial, type ValidationIssue } from './partial.js';

/** Write semantics: every writable field takes the given value or its default. */
export function complete(fields: FieldTable, partial: Partial): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (field.readonly) continue;
    const v = partial[name];
    if (v === undefined || v === RESET) {
      const d = defaultValue(field);
      if (d !== undefined) out[name] = d;
    } else if (field.spec.kind === 'object') {
      out[name] = complete(field.spec.fields, v as Partial);
    } else if (field.spec.kind === 'map') {
      out[name] = Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, item]) => item !== RESET));
    } else {
      out[name] = v;
    }
  }
  return out;
}

/** Patch semantics: deep merge onto the current writable data; arrays replace, RESET resets or removes. */
export function merge(fields: FieldTable, current: Record<string, unknown>, partial: Partial): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (field.readonly) continue;
    const cur = current[name];
    const v = partial[name];
    if (v === undefined) {
      if (cur !== undefined) out[name] = cur;
    } else if (v === RESET) {
      const d = defaultValue(field);
      if (d !== undefined) out[name] = d;
    } else if (field.spec.kind === 'object') {
      const base = cur === undefined ? {} : (cur as Record<string, unknown>);
      out[name] = merge(field.spec.fields, fillMissing(field.spec.fields, base), v as Partial);
    } else if (field.spec.kind === 'map') {
      // Entries merge by name; a null entry removes the name.
      const merged: Record<string, unknown> = { ...(cur as Record<string, unknown> | undefined) };
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        if (item === RESET) delete merged[k];
        else merged[k] = item;
      }
      out[name] = merged;
    } else {
      out[name] = v;
    }
  }
  return out;
}

function fillMissing(fields: FieldTable, base: Record<string, unknown>): Record<string, unknown> {
  return { ...complete(fields, {}), ...base };
}

/** The writable projection of a block's data (the base a patch merges onto). */
export function writable(fields: FieldTable, data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (field.readonly || data[name] === undefined) continue;
    const v = data[name];
    out[name] = field.spec.kind === 'object' ? writable(field.spec.fields, v as Record<string, unknown>) : v;
  }
  return out;
}

/**
 * Puts a block's own stored read-only values (decoded from its record with `owned`) into its
 * data, at any depth, after the writable ones were put in place.
 */
export function overlayOwned(fields: FieldTable, data: Record<string, unknown>, decoded: Partial): void {
  for (const [name, field] of Object.entries(fields)) {
    const v = decoded[name];
    if (v === undefined || v === RESET) continue;
    const s = field.spec;
    if (field.readonly) {
      if (field.stored) data[name] = s.kind === 'object' ? complete(s.fields, v as Partial) : v;
    } else if (s.kind === 'object' && isPlainObject(data[name])) {
      overlayOwned(s.fields, data[name] as Record<string, unknown>, v as Partial);
    }
  }
}

/**
 * Full block data after a write: the new writable values, with the read-only (computed) values
 * carried over from the previous data, or their defaults where there is nothing to carry.
 */
export function withReadonly(
  fields: FieldTable,
  previous: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    const prev = previous?.[name];
    if (field.readonly) {
      const v = prev !== undefined ? prev : defaultValue(field);
      if (v !== undefined) out[name] = v;
      continue;
    }
    const v = next[name];
    if (v === undefined) continue;
    const s = field.spec;
    if (s.kind === 'object') {
      out[name] = withReadonly(s.fields, prev as Record<string, unknown> | undefined, v as Record<string, unknown>);
    } else if (s.kind === 'array' && s.of.spec.kind === 'object') {
      const itemFields = s.of.spec.fields;
      const prevItems = Array.isArray(prev) ? prev : [];
      out[name] = (v as Record<string, unknown>[]).map((item, i) =>
        withReadonly(itemFields, prevItems[i] as Record<string, unknown> | undefined, item),
      );
    } else {
      out[name] = v;
    }
  }
  return out;
}

/**
 * The issues of decoding what a block kept (its stored record, or a backup of it) with `owned`,
 * sorted by the one rule both follow: a field this version does not know was left out by the
 * decode (`unknown`); a value the block writes itself that does not decode is left out of `value`
 * whole, at `root`, the outermost such field (`owned`); anything else (a setting a client made)
 * is `blocking`, since loading without it would run the block on a default.
 */
export function sortKeptIssues(
  fields: FieldTable,
  value: Partial,
  issues: ValidationIssue[],
): { unknown: ValidationIssue[]; owned: (ValidationIssue & { root: string })[]; blocking: ValidationIssue[] } {
  const unknown: ValidationIssue[] = [];
  const owned: (ValidationIssue & { root: string })[] = [];
  const blocking: ValidationIssue[] = [];
  for (const i of issues) {
    const root = i.dropped ? null : ownedRoot(fields, i.path);
    if (i.dropped) unknown.push(i);
    else if (root === null) blocking.push(i);
    else owned.push({ ...i, root });
  }
  for (const i of owned) leaveOut(value, i.root);
  return { unknown, owned, blocking };
}
