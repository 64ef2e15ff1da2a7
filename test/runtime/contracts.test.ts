// Typed contracts (DESIGN §10): a linked block resolves through its interface, typed by the
// interface map, and a block of another interface is refused, at run time (null) and at compile
// time (test/types/contracts.check.ts must compile with each @ts-expect-error line an error).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { f } from '../../src/codec/fields.js';
import type { InterfaceName } from '../../src/runtime/interfaces.js';
import { defineBlock } from '../../src/runtime/types.js';
import { testRuntime } from '../helpers/runtime.js';
import { ROOT } from '../helpers/root.js';

const root = ROOT;

/** Resolves its `target` through each interface on every update and keeps what came back. */
const seen = new Map<InterfaceName, string | null>();
const ASKED: InterfaceName[] = ['TempSensorInterface', 'SetpointSensorPairInterface', 'ActuatorAnalogInterface', 'Any'];
const Probe = defineBlock({
  type: 'Probe',
  role: 'controller',
  fields: { target: f.link('Any', { stored: true }) },
  implements: [],
  update(block, ctx) {
    for (const iface of ASKED) seen.set(iface, ctx.resolve(block.data.target, iface)?.id ?? null);
    return ctx.now + 1000;
  },
});

t.test('resolve() gives the block only through an interface its type implements', async (t) => {
  const { runtime, clock } = testRuntime({ extraTypes: [Probe] });
  runtime.create({ id: 'beer', type: 'TempSensorMock', data: { value: 20 } });
  runtime.create({ id: 'probe', type: 'Probe', data: { target: { __objtype: 'Link', id: 'beer' } } });
  clock.advance(1000);
  runtime.tick();
  t.equal(seen.get('TempSensorInterface'), 'beer', 'a TempSensorMock is a TempSensorInterface');
  t.equal(seen.get('Any'), 'beer');
  t.equal(seen.get('SetpointSensorPairInterface'), null, 'a sensor is not a setpoint pair');
  t.equal(seen.get('ActuatorAnalogInterface'), null, 'a sensor is not an analog actuator');
});

t.test('the type checker refuses reads an interface does not promise, and claims a type does not keep', async (t) => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'test/types/tsconfig.json')], {
    encoding: 'utf8',
    cwd: root,
  });
  t.equal(run.status, 0, run.stdout || run.stderr || 'compiles, with every @ts-expect-error line an error');
});
