// What a block type declares of itself reaches clients through the OpenAPI document: its role
// (x-role on the type schema), read-only fields (readOnly) and units (x-unit). Walked from the
// field tables of every registered type, so a new type is covered without touching this test.
import t from 'tap';
import type { Field, FieldTable } from '../../src/codec/fields.js';
import { DEFAULT_UNITS, userUnit } from '../../src/codec/units.js';
import { BLOCK_ROLES } from '../../src/runtime/traits.js';
import { startApp } from '../helpers/app.js';

/** Each field's schema node in the document, with its path, for every field at any depth. */
function* fieldNodes(fields: FieldTable, schema: any, path: string): Generator<[string, Field, any]> {
  for (const [name, field] of Object.entries(fields))
    yield* fieldNode(field, schema?.properties?.[name], `${path}.${name}`);
}

function* fieldNode(field: Field, node: any, path: string): Generator<[string, Field, any]> {
  yield [path, field, node];
  const s = field.spec;
  if (s.kind === 'object' || s.kind === 'variant') yield* fieldNodes(s.fields, node, path);
  else if (s.kind === 'array') yield* fieldNode(s.of, node?.items, `${path}[]`);
  else if (s.kind === 'map')
    yield* fieldNode(
      s.of,
      node?.patternProperties ? Object.values(node.patternProperties)[0] : node?.additionalProperties,
      `${path}{}`,
    );
}

t.test('every type schema carries x-role, readOnly and x-unit from its defineBlock', async (t) => {
  const { app, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const res = await app.http.inject({ method: 'GET', url: '/edge-one/api/doc/json' });
  const schemas = JSON.parse(res.body).components.schemas;
  let readOnly = 0;
  let units = 0;
  for (const def of app.runtime.types.values()) {
    const component = schemas[def.type];
    t.ok(BLOCK_ROLES.includes(def.role), `${def.type} declares a role`);
    t.equal(component['x-role'], def.role, `${def.type}: x-role`);
    for (const [path, field, node] of fieldNodes(def.fields, component.properties.data, def.type)) {
      if (!node) {
        t.fail(`${path} has no schema`);
        continue;
      }
      t.equal(node.readOnly === true, field.readonly === true, `${path}: readOnly ${field.readonly === true}`);
      if (field.readonly) readOnly++;
      if (field.spec.kind === 'quantity') {
        t.equal(node['x-unit'], userUnit(field.spec.unit, DEFAULT_UNITS), `${path}: x-unit`);
        units++;
      } else t.equal(node['x-unit'], undefined, `${path}: no x-unit`);
    }
  }
  // The walk reached the fields (a broken walk would pass vacuously).
  t.ok(readOnly > 50 && units > 30, `${readOnly} read-only fields, ${units} quantities checked`);
});

t.test('the Home Assistant entities of a type name fields it has', async (t) => {
  const { app, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const announced = [...app.runtime.types.values()].filter((d) => d.homeAssistant?.length);
  t.ok(announced.length >= 7, `${announced.length} types announce entities`);
  for (const def of announced) {
    for (const e of def.homeAssistant!) {
      t.ok(e.field in def.fields, `${def.type}.${e.key}: field ${e.field}`);
      if (e.write)
        t.ok(
          e.write in def.fields && !def.fields[e.write]!.readonly,
          `${def.type}.${e.key}: writes the writable field ${e.write}`,
        );
    }
  }
});
