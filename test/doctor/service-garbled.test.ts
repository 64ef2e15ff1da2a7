// The doctor beside a running service tells the 1-Wire devices the blocks use that are gone from
// those that answer but whose replies fail their CRC checks (the service's
// hardware.onewire.garbled): for those the advice is the one on CRC errors (the wiring), not the
// one on devices that vanish.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Config } from '../../src/config.js';
import { advice } from '../../src/doctor/advice.js';
import { serviceSection } from '../../src/doctor/service.js';

t.test('a garbled device is a problem of its own, with the CRC advice', async (t) => {
  const status = {
    uptime: 100,
    hardware: {
      onewire: { buses: [], missing: ['29d10000000000d0', '28b1000000000022'], garbled: ['29d10000000000d0'] },
    },
  };
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(status));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const config = { host: '127.0.0.1', port, serviceId: 'edge-one' } as unknown as Config;
  const { section } = await serviceSection(config, 1234);
  const texts = section.findings.map((f) => f.text);
  t.ok(texts.includes('1 device(s) the blocks use are missing'), JSON.stringify(section.findings));
  const garbled = section.findings.find((f) => /fail their checks/.test(f.text));
  t.match(garbled, {
    verdict: 'warn',
    text: '1 device(s) the blocks use answer but their replies fail their checks (CRC): a noisy bus, a long cable or a failing chip',
  });
  t.equal((garbled as { advice?: string } | undefined)?.advice, advice('crc').advice, 'with the advice on CRC errors');
});
