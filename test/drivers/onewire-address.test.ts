import t from 'tap';
import {
  bytesToRom,
  isRomAddressSyntax,
  isValidRom,
  makeRom,
  romFamily,
  romToBytes,
  romToKernelName,
} from '../../drivers/onewire/address.js';
import { OneWireError } from '../../drivers/onewire/types.js';

t.test('address <-> bytes', async (t) => {
  const bytes = [0x28, 0x13, 0x9b, 0xbb, 0x0b, 0x00, 0x00, 0x1f];
  t.equal(bytesToRom(bytes), '28139bbb0b00001f', 'bus order, family first, lowercase');
  t.same([...romToBytes('28139bbb0b00001f')], bytes);
  t.equal(romFamily('28139bbb0b00001f'), 0x28);
  t.ok(isValidRom('28139bbb0b00001f'));
  t.notOk(isValidRom('28139bbb0b00001e'), 'CRC mismatch');
  t.notOk(isValidRom('00000000000000000'), 'wrong length');
  t.notOk(isValidRom('0000000000000000'), 'family 0 (CRC 0 passes) rejected');
  t.notOk(isRomAddressSyntax('28139BBB0B00001F'), 'upper case is not the canonical form');
  t.throws(() => romToBytes('28-00000bbb9b13'), OneWireError);
  t.throws(() => bytesToRom([1, 2, 3]), OneWireError);
});

t.test('makeRom computes the CRC and orders the serial LSB first', async (t) => {
  const rom = makeRom(0x28, 0x00000bbb9b13n);
  t.equal(rom, '28139bbb0b00001f');
  t.equal(romToKernelName(rom), '28-00000bbb9b13');
  t.ok(isValidRom(makeRom(0x3a, 0xffffffffffffn)));
  t.throws(() => makeRom(0x28, 1n << 48n), OneWireError);
});
