// mqtt-packet (under both mqtt.js and aedes) fills a table of 65 536 two-byte buffers on its
// first packet: 6 MB of heap and 65 k objects that every garbage collection walks, to save a
// two-byte allocation per packet. Imported for this side effect before any packet is written.
import mqttPacket from 'mqtt-packet';

mqttPacket.writeToStream.cacheNumbers = false;
