// The emulated kernel w1 tree the w1-sysfs*.test.ts files read: two masters with two DS18B20, a
// DS2408 and a DS2413 on them, a W1SysfsBus on each; and the OneWireError code of a failure.
import { OneWireError } from '../../drivers/onewire/types.js';
import { W1SysfsBus } from '../../drivers/onewire/w1-sysfs.js';
import { OneWireSegment, SimDs18b20, SimDs2408, SimDs2413 } from '../../drivers/sim/onewire-wire.js';
import { W1Tree } from '../../drivers/sim/w1-tree.js';

export function code(e: unknown): string {
  return e instanceof OneWireError ? e.code : `not a OneWireError: ${String(e)}`;
}

export function rig(opts: Partial<ConstructorParameters<typeof W1Tree>[0]> = {}) {
  const seg1 = new OneWireSegment();
  const seg2 = new OneWireSegment();
  const a = seg1.attach(new SimDs18b20({ serial: 0x0000034a5a5dn, temperature: 21.5 }));
  const b = seg1.attach(new SimDs18b20({ serial: 0x2n, temperature: -4.25 }));
  const sw = seg1.attach(new SimDs2408({ serial: 0x3n }));
  const ab = seg2.attach(new SimDs2413({ serial: 0x4n }));
  const tree = new W1Tree({ masters: [seg1, seg2], ...opts });
  const bus1 = new W1SysfsBus({ root: tree.root, master: 'w1_bus_master1' });
  const bus2 = new W1SysfsBus({ root: tree.root, master: 'w1_bus_master2' });
  return { seg1, seg2, a, b, sw, ab, tree, bus1, bus2 };
}
