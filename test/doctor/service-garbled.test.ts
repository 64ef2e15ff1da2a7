// The doctor beside a running service tells the 1-Wire devices the blocks use that are gone from
// those that answer but whose replies fail their CRC checks (the service's
// hardware.onewire.garbled): for those the advice is the one on CRC errors (the wiring), not the
// one on devices that vanish.
import t from 'tap';
import { serviceSectionFor } from '../helpers/doctor.js';
import { advice } from '../../src/doctor/advice.js';

t.test('a garbled device is a problem of its own, with the CRC advice', async (t) => {
  const status = {
    uptime: 100,
    hardware: {
      onewire: { buses: [], missing: ['29d10000000000d0', '28b1000000000022'], garbled: ['29d10000000000d0'] },
    },
  };
  const section = await serviceSectionFor(t, status);
  const texts = section.findings.map((f) => f.text);
  t.ok(texts.includes('1 device(s) the blocks use are missing'), JSON.stringify(section.findings));
  const garbled = section.findings.find((f) => /fail their checks/.test(f.text));
  t.match(garbled, {
    verdict: 'warn',
    text: '1 device(s) the blocks use answer but their replies fail their checks (CRC): a noisy bus, a long cable or a failing chip',
  });
  t.equal((garbled as { advice?: string } | undefined)?.advice, advice('crc').advice, 'with the advice on CRC errors');
});
