import t from 'tap';
import { checkInvertedCrc16, crc16, crc8, invertedCrc16Bytes } from '../../drivers/onewire/crc.js';

t.test('crc8 known vectors', async (t) => {
  t.equal(crc8([0x28, 0x13, 0x9b, 0xbb, 0x0b, 0x00, 0x00]), 0x1f, 'ROM bytes 0..6');
  t.equal(crc8([0x50, 0x05, 0x4b, 0x46, 0x7f, 0xff, 0x0c, 0x10]), 0x1c, 'power-on scratchpad');
  t.equal(crc8([0xe1, 0x00, 0x4b, 0x46, 0x7f, 0xff, 0x0c, 0x10]), 0xf8, 'scratchpad seen with crc=f8');
  t.equal(crc8(new Array(8).fill(0)), 0x00, 'all-zero data has CRC 0 (why all-zero must be rejected explicitly)');
  t.equal(crc8(new Array(8).fill(0xff)), 0xc9, 'all 0xFF');
  // Dallas application note 27 example ROM: 02 1C B8 01 00 00 00 A2
  t.equal(crc8([0x02, 0x1c, 0xb8, 0x01, 0x00, 0x00, 0x00]), 0xa2, 'AN27 example');
  t.equal(crc8([0x28, 0x13, 0x9b, 0xbb, 0x0b, 0x00, 0x00, 0x1f]), 0, 'data + CRC yields 0');
  t.equal(crc8([]), 0);
});

t.test('crc16 known vectors', async (t) => {
  // CRC-16/ARC (poly 0x8005 reflected, init 0) check value of "123456789" is 0xBB3D.
  t.equal(crc16(Buffer.from('123456789', 'ascii')), 0xbb3d, 'CRC-16/ARC check value');
  t.equal(crc16([]), 0);
  t.equal(crc16([0x01]), 0xc0c1, 'single byte 0x01');
  const data = [0xf0, 0x88, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x88, 0xff, 0xff];
  const [lo, hi] = invertedCrc16Bytes(data);
  t.ok(checkInvertedCrc16(data, lo, hi), 'inverted CRC16 round trip');
  t.notOk(checkInvertedCrc16(data, lo ^ 1, hi), 'flipped CRC bit fails');
  t.notOk(checkInvertedCrc16([...data.slice(0, 4), 0x01, ...data.slice(5)], lo, hi), 'flipped data bit fails');
  // Running the CRC over data followed by its (non-inverted) CRC gives 0.
  const c = crc16(data);
  t.equal(crc16([...data, c & 0xff, c >> 8]), 0);
});
