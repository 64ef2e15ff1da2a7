// The doctor beside a running service lists its active alerts as problems, device-missing ones
// included: a missing I2C chip (a relay board's MCP23017) is a device-missing alert, and the
// doctor's own count of missing devices holds only 1-Wire ones.
import t from 'tap';
import { serviceSectionFor } from '../helpers/doctor.js';

t.test('a missing I2C chip the service alerts on is a problem of the doctor report', async (t) => {
  const status = {
    uptime: 100,
    hardware: { onewire: { buses: [], missing: [] }, i2c: { missing: [{ bus: 'i2c-1', address: '0x20' }] } },
    alerts: {
      active: 1,
      list: [
        {
          key: 'device-missing:i2c-1/0x20',
          kind: 'device-missing',
          title: 'Device missing',
          text: 'Heater (I2C chip 0x20 on bus i2c-1) is missing from its bus',
          since: new Date().toISOString(),
          acknowledged: false,
        },
      ],
    },
  };
  const section = await serviceSectionFor(t, status);
  const problems = section.findings.filter((f) => f.verdict === 'warn' || f.verdict === 'fail');
  t.ok(
    problems.some((f) => /I2C chip 0x20|missing/i.test(f.text)),
    `the missing I2C chip is a problem of the report; findings: ${JSON.stringify(section.findings)}`,
  );
});
