// OneWireBus: one 1-Wire master (a kernel w1 master, a DS2482 channel, a DS2480B adapter), with
// what its last search found and its error counters. Created by discovery for masters with
// devices; `name` binds the block to its master, everything else is read-only.
import { f } from '../codec/fields.js';
import { defineBlock } from '../runtime/types.js';
import { nextBeat } from './shared/cadence.js';

const counter = (description: string) => f.number({ readonly: true, logged: true, integer: true, description });

const fields = {
  name: f.string({
    stored: true,
    maxLength: 200,
    description: 'name of the master, e.g. ds2482-1-0x18-ch0 or w1-w1_bus_master1',
  }),
  kind: f.string({ readonly: true, description: 'ds2482, ds2480b or w1; empty while the master is absent' }),
  present: f.bool({ readonly: true, description: 'the master exists on this machine' }),
  address: f.array(f.string({ readonly: true }), { readonly: true, description: 'devices found by the last search' }),
  crcErrors: counter('CRC failures that retries did not absorb'),
  crcRetries: counter('CRC failures absorbed by a retry'),
  presenceErrors: counter('devices that did not answer'),
  shortErrors: counter('bus shorts detected'),
  readErrors: counter('other failures: invalid data (85 degC power-on, all-zero scratchpad), timeouts, I/O'),
  searches: counter('ROM searches run'),
  lastError: f.string({ readonly: true, maxLength: 1000 }),
};

export const OneWireBus = defineBlock<typeof fields>({
  type: 'OneWireBus',
  role: 'io',
  fields,
  implements: ['OneWireBusInterface'],
  description: 'A 1-Wire master: devices found and error counters',
  discovered: true,
  update(block, ctx) {
    const d = block.data;
    const info = ctx.hardware.services.onewire?.bus(d.name) ?? null;
    d.present = info !== null;
    d.kind = info?.kind ?? '';
    d.address = info?.addresses.slice() ?? [];
    d.crcErrors = info?.crcErrors ?? null;
    d.crcRetries = info?.crcRetries ?? null;
    d.presenceErrors = info?.presenceErrors ?? null;
    d.shortErrors = info?.shortErrors ?? null;
    d.readErrors = info?.readErrors ?? null;
    d.searches = info?.searches ?? null;
    d.lastError = info?.lastError ?? '';
    return nextBeat(ctx.now, 1000);
  },
});
