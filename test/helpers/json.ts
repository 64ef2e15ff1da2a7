// Typed reads of the JSON the API hands back (block data, response bodies are `unknown`): `at`
// walks a path and names the first step that is missing, so a test fails with where the shape
// broke instead of a TypeError.
export type JsonPath = (string | number)[];

/** The value at `path` inside `value`; throws naming the path if a step is not an object. */
export function at(value: unknown, ...path: JsonPath): unknown {
  let here = value;
  for (let i = 0; i < path.length; i++) {
    if (here === null || typeof here !== 'object')
      throw new Error(
        `no ${path.slice(0, i + 1).join('.')}: ${path.slice(0, i).join('.') || 'value'} is ${JSON.stringify(here)}`,
      );
    here = (here as Record<string | number, unknown>)[path[i]!];
  }
  return here;
}

/** The object at `path` (throws if it is not one), for its keys or for more `at` reads. */
export function objectAt(value: unknown, ...path: JsonPath): Record<string, unknown> {
  const found = at(value, ...path);
  if (found === null || typeof found !== 'object' || Array.isArray(found))
    throw new Error(`${path.join('.') || 'value'} is not an object: ${JSON.stringify(found)}`);
  return found as Record<string, unknown>;
}

/** The array at `path` (throws if it is not one). */
export function arrayAt(value: unknown, ...path: JsonPath): unknown[] {
  const found = at(value, ...path);
  if (!Array.isArray(found)) throw new Error(`${path.join('.') || 'value'} is not an array: ${JSON.stringify(found)}`);
  return found;
}
