// The dashboard learns each block type's role, read-only fields and units from the served
// OpenAPI document (web/src/type-doc.ts), not from a table of its own: the grouping follows
// whatever the document says.
import t from 'tap';
import { roleOf } from '../../web/src/blocks.js';
import { typeDocOf, type OpenApiDoc } from '../../web/src/type-doc.js';
import { startApp } from '../helpers/app.js';

async function servedDoc(): Promise<{
  doc: OpenApiDoc;
  types: Map<string, { role: string }>;
  close: () => Promise<void>;
}> {
  const { app, close } = await startApp({}, { listen: false });
  const res = await app.http.inject({ method: 'GET', url: '/edge-one/api/doc/json' });
  return { doc: JSON.parse(res.body), types: app.runtime.types, close };
}

t.test('every type of the document is grouped by the role its defineBlock declares', async (t) => {
  const { doc, types, close } = await servedDoc();
  t.teardown(close);
  const typeDoc = typeDocOf(doc);
  t.equal(typeDoc.roles.size, types.size, 'a role for every type');
  for (const [type, def] of types) t.equal(roleOf({ id: 'x', type, data: {} }, typeDoc.roles), def.role, type);
});

t.test('the grouping comes from the document: a changed x-role moves the block', async (t) => {
  const { doc, close } = await servedDoc();
  t.teardown(close);
  const sensor = {
    id: 'beer',
    type: 'TempSensorMock',
    data: { value: { __objtype: 'Quantity' as const, unit: 'degC', value: 20 } },
  };
  t.equal(roleOf(sensor, typeDocOf(doc).roles), 'sensor');
  doc.components!.schemas!.TempSensorMock!['x-role'] = 'output';
  t.equal(roleOf(sensor, typeDocOf(doc).roles), 'output', 'the page follows the document');
  // A type the document does not describe is grouped by its data.
  t.equal(roleOf({ id: 'gpio', type: 'SomeFutureArray', data: { channels: [] } }, typeDocOf(doc).roles), 'io');
});

t.test('the editor reads read-only fields and units from readOnly and x-unit', async (t) => {
  const { doc, close } = await servedDoc();
  t.teardown(close);
  const pid = typeDocOf(doc).data.get('Pid')!.properties!;
  t.equal(pid.outputValue!.readOnly, true, 'a computed field is readOnly');
  t.notOk(pid.kp!.readOnly, 'a setting is not');
  t.equal(pid.ti!['x-unit'], 'second');
  t.equal(pid.kp!['x-unit'], '1 / degC');
});
