// Dallas/Maxim 1-Wire CRCs. Both are LSB-first (reflected) with initial value 0.

/** CRC8, polynomial x^8+x^5+x^4+1 (reflected 0x8C). Over data + its CRC byte the result is 0. */
export function crc8(bytes: ArrayLike<number>, init = 0): number {
  let crc = init & 0xff;
  for (let i = 0; i < bytes.length; i++) {
    let b = bytes[i]! & 0xff;
    for (let bit = 0; bit < 8; bit++) {
      const mix = (crc ^ b) & 1;
      crc >>= 1;
      if (mix) crc ^= 0x8c;
      b >>= 1;
    }
  }
  return crc;
}

/** CRC16, polynomial x^16+x^15+x^2+1 (reflected 0xA001). Devices transmit its complement, LSB first. */
export function crc16(bytes: ArrayLike<number>, init = 0): number {
  let crc = init & 0xffff;
  for (let i = 0; i < bytes.length; i++) {
    crc ^= bytes[i]! & 0xff;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
    }
  }
  return crc;
}

/** True when `lo`,`hi` (as received, LSB first) are the inverted CRC16 of `bytes`, as DS2408/DS2413-class devices send it. */
export function checkInvertedCrc16(bytes: ArrayLike<number>, lo: number, hi: number): boolean {
  const received = ((hi & 0xff) << 8) | (lo & 0xff);
  return (~crc16(bytes) & 0xffff) === received;
}

/** The two bytes (LSB first) a device appends: the inverted CRC16 of `bytes`. */
export function invertedCrc16Bytes(bytes: ArrayLike<number>): [number, number] {
  const inv = ~crc16(bytes) & 0xffff;
  return [inv & 0xff, inv >> 8];
}
