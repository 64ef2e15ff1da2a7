// Outputs a DS2408 lost by itself (drivers/onewire/poller.ts): a supply that bounces resets the
// module again before every writer has heard of the first reset. The outputs lost the first time
// and not asked for since must still be named lost after the second, or the compressor's
// DigitalActuator never records that it went off and switches it straight back on.
import t from 'tap';
import { BusPoller } from '../../drivers/onewire/poller.js';
import { SimDs2408 } from '../../drivers/sim/onewire-wire.js';
import { ds2482Rig } from './onewire-fixtures.js';

t.test('a second reset before the first loss was taken up keeps naming the first', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const board = segment.attach(new SimDs2408({ serial: 51n }));
  const poller = new BusPoller(bus);
  poller.watchIo(board.address, 'DS2408');
  poller.setLatches(board.address, 0x03); // compressor (1) and pump (2)
  await poller.service((clock.t += 10));
  t.equal(board.activeOutputs(), 0x03);
  board.powerOnReset();
  await poller.service((clock.t += 1000));
  t.match(poller.io(board.address), { desired: 0, lost: { bits: 0x03 } }, 'both lost');
  poller.setLatches(board.address, 0x02); // the pump's writer asks again; the compressor's has not yet
  await poller.service((clock.t += 10));
  t.equal(board.activeOutputs(), 0x02, 'the pump is back');
  board.powerOnReset();
  await poller.service((clock.t += 1000));
  const lost = poller.io(board.address)!.lost!;
  t.equal(lost.bits & 0x01, 0x01, 'the compressor is still named lost');
  t.equal(lost.bits & 0x02, 0x02, 'and the pump, lost again');
  poller.setLatches(board.address, 0x03); // the pump and the compressor switched on again, later
  await poller.service((clock.t += 10));
  t.equal(board.activeOutputs(), 0x03);
});
