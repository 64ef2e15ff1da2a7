// What the controller's OpenAPI document (`/{serviceId}/api/doc/json`) says of each block type:
// its data schema (fields, read-only flags, units) and its role. The page keeps no table of
// its own by type name; a type the server adds is shown as the server describes it. Pure (no
// imports): loading it is use-type-doc.ts.

export type Role = 'sensor' | 'setpoint' | 'controller' | 'output' | 'io' | 'system';

export interface Schema {
  title?: string;
  description?: string;
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  nullable?: boolean;
  $ref?: string;
  readOnly?: boolean;
  deprecated?: boolean;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
  const?: unknown;
  'x-unit'?: string;
  'x-role'?: Role;
  /** On a type: the interfaces a link to it satisfies. */
  'x-implements'?: string[];
}

export interface OpenApiDoc {
  paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: Schema }> } } }>;
  components?: { schemas?: Record<string, Schema> };
}

export interface TypeDoc {
  /** The data schema per type name. */
  data: Map<string, Schema>;
  roles: Map<string, Role>;
  /** The interfaces a link to each type satisfies (x-implements), where the document says. */
  implements: Map<string, string[]>;
  /** What each type is, in a sentence (its description). */
  descriptions: Map<string, string>;
}

/** Each block type is a shared component (`#/components/schemas/<type>`) the create body refers to. */
function deref(doc: OpenApiDoc, s: Schema): Schema {
  const name = s.$ref?.startsWith('#/components/schemas/') ? s.$ref.slice('#/components/schemas/'.length) : null;
  return (name && doc.components?.schemas?.[name]) || s;
}

/** The block types of the document: those the create request accepts. */
export function typeDocOf(doc: OpenApiDoc): TypeDoc {
  const create = Object.entries(doc.paths).find(([p]) => p.endsWith('/blocks/create'))?.[1].post;
  const root = create?.requestBody?.content['application/json']?.schema;
  const types = (root?.anyOf ?? []).map((s) => deref(doc, s)).filter((s) => s.title);
  return {
    data: new Map(types.map((s) => [s.title!, s.properties?.data ?? {}])),
    roles: new Map(types.filter((s) => s['x-role']).map((s) => [s.title!, s['x-role']!])),
    implements: new Map(types.filter((s) => s['x-implements']).map((s) => [s.title!, s['x-implements']!])),
    descriptions: new Map(types.filter((s) => s.description).map((s) => [s.title!, s.description!])),
  };
}

/** A field's range (`minimum`/`maximum`, on the number or a quantity's value), in internal units. */
export function rangeOf(s: Schema | undefined): { min?: number; max?: number } {
  if (!s) return {};
  for (const v of [
    s,
    ...(s.anyOf ?? []),
    ...(s.anyOf ?? []).flatMap((a) => [
      ...(a.anyOf ?? []),
      a.properties?.value ?? {},
      ...(a.properties?.value?.anyOf ?? []),
    ]),
  ]) {
    if (v.minimum !== undefined || v.maximum !== undefined) return { min: v.minimum, max: v.maximum };
  }
  return {};
}
