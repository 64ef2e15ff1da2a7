// A maximum MQTT packet size for the embedded broker. aedes (and mqtt-packet's parser) buffer a
// packet whole, whatever length its header announces, so the connection is watched as it is
// read: the fixed header of every packet (type byte + remaining-length varint) is decoded, and
// a connection announcing a packet over the limit is closed before the body is buffered.
import type { Duplex } from 'node:stream';

/** Watch `stream` (once the broker reads it) and destroy it when a packet is longer than `maxBytes`. */
export function limitPacketSize(stream: Duplex, maxBytes: number, onTooLarge: (bytes: number) => void): void {
  let state: 'type' | 'length' | 'body' = 'type';
  let length = 0;
  let multiplier = 1;
  let remaining = 0;
  const onData = (chunk: Buffer) => {
    let i = 0;
    while (i < chunk.length) {
      if (state === 'type') {
        i++;
        state = 'length';
        length = 0;
        multiplier = 1;
      } else if (state === 'length') {
        const byte = chunk[i++]!;
        length += (byte & 0x7f) * multiplier;
        multiplier *= 128;
        if (byte & 0x80) {
          if (multiplier > 128 ** 4) return stream.off('data', onData); // malformed: the parser reports it
          continue;
        }
        if (length > maxBytes) {
          stream.off('data', onData);
          onTooLarge(length);
          stream.destroy();
          return;
        }
        remaining = length;
        state = remaining > 0 ? 'body' : 'type';
      } else {
        const n = Math.min(remaining, chunk.length - i);
        i += n;
        remaining -= n;
        if (remaining === 0) state = 'type';
      }
    }
  };
  stream.on('data', onData);
}
