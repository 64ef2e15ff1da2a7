// Every block type accepts the full brewblox-proto shape of its data (ts/spark-block-types.ts in
// BrewBlox/brewblox-proto), read-only fields included, and a read written back changes nothing.
// Types the UI quick starts and "new block" bodies already cover are in test/api/brewblox-data.test.ts.
import t from 'tap';
import { testRuntime } from '../helpers/runtime.js';

const q = (value: number | null, unit: string, readonly?: boolean) => ({
  __bloxtype: 'Quantity',
  value,
  unit,
  ...(readonly ? { readonly } : {}),
});
const link = (id: string | null, type: string | null = null) => ({ __bloxtype: 'Link', id, type });
const channels = [{ id: 1, capabilities: 1, claimedBy: link(null) }];

const shapes: Array<[string, string, Record<string, unknown>]> = [
  [
    'mock',
    'ActuatorAnalogMock',
    {
      enabled: true,
      storedSetting: 40,
      desiredSetting: 40,
      setting: 40,
      value: 40,
      minSetting: 0,
      maxSetting: 100,
      minValue: 0,
      maxValue: 100,
      constraints: {
        min: { enabled: true, limiting: false, value: 10 },
        max: { enabled: false, limiting: false, value: 90 },
        balanced: { enabled: true, limiting: false, balancerId: link('balancer'), granted: 0 },
      },
      claimedBy: link(null),
      settingMode: 'STORED',
    },
  ],
  [
    'logic',
    'ActuatorLogic',
    {
      enabled: true,
      digital: [{ id: link('act'), op: 'OP_VALUE_IS', rhs: 'STATE_ACTIVE', result: 'RESULT_FALSE' }],
      analog: [{ id: link('mock'), op: 'OP_VALUE_GE', rhs: 20, result: 'RESULT_FALSE' }],
      expression: 'a|A',
      result: 'RESULT_EMPTY',
      errorPos: 0,
      targetId: link('act2'),
    },
  ],
  [
    'input',
    'DigitalInput',
    {
      hwDevice: link('pins'),
      channel: 3,
      state: null,
      invert: false,
      behavior: 'DIRECT',
      minActiveTime: q(0, 's'),
      hwState: null,
    },
  ],
  [
    'external',
    'TempSensorExternal',
    { enabled: true, timeout: q(300, 's'), setting: q(20, 'degC'), lastUpdated: null, value: q(null, 'degC', true) },
  ],
  [
    'combi',
    'TempSensorCombi',
    { value: q(null, 'degC', true), combineFunc: 'SENSOR_COMBI_FUNC_AVG', sensors: [link('sensor'), link('external')] },
  ],
  [
    'onewire',
    'TempSensorOneWire',
    {
      offset: q(0.5, 'delta_degC'),
      address: '28ab000000000001',
      value: q(null, 'degC', true),
      oneWireBusId: link(null),
    },
  ],
  [
    'ds2408',
    'DS2408',
    { address: '29ab000000000001', channels, connectMode: 'CONNECT_ACTUATOR', connected: false, oneWireBusId: 0 },
  ],
  ['ds2413', 'DS2413', { address: '3aab000000000001', channels, connected: false, oneWireBusId: 0 }],
  [
    'pid',
    'Pid',
    {
      inputId: link(null),
      outputId: link(null),
      ambientId: link(null),
      inputValue: q(null, 'degC'),
      inputSetting: q(null, 'degC'),
      outputValue: 0,
      outputSetting: 0,
      enabled: false,
      active: false,
      kp: q(20, '1 / degC'),
      ti: q(7200, 's'),
      td: q(0, 's'),
      kff: q(0, '1 / degC'),
      p: 0,
      i: 0,
      d: 0,
      ff: 0,
      error: q(null, 'delta_degC'),
      integral: 0,
      derivative: 0,
      derivativeFilter: 'FILTER_NONE',
      derivativeFilterChoice: 'FILTER_NONE',
      ambientValue: q(null, 'degC'),
      ambientOffset: q(null, 'delta_degC'),
      integralReset: 0,
      boilPointAdjust: q(0, 'delta_degC'),
      boilMinOutput: 0,
      boilModeActive: false,
    },
  ],
  ['mutex2', 'Mutex', { waitRemaining: q(0, 's') }],
  ['balancer2', 'Balancer', { clients: [{ id: link('mock'), requested: 0, granted: 0 }] }],
];

t.test('the proto shape of every type is accepted, and writing a read back changes nothing', async (t) => {
  const { runtime } = testRuntime();
  for (const [id, type, data] of [
    ['pins', 'MockPins', { channels }],
    ['balancer', 'Balancer', {}],
    [
      'sensor',
      'TempSensorMock',
      {
        connected: true,
        setting: q(20, 'degC'),
        fluctuations: [{ amplitude: q(1, 'delta_degC'), period: q(600, 's') }],
        value: q(20, 'degC'),
      },
    ],
    ['act', 'DigitalActuator', { hwDevice: link('pins'), channel: 1 }],
    ['act2', 'DigitalActuator', { hwDevice: link('pins'), channel: 2 }],
  ] as Array<[string, string, Record<string, unknown>]>)
    runtime.create({ id, type, data });
  for (const [id, type, data] of shapes) {
    let created;
    try {
      created = runtime.create({ id, type, serviceId: 'test-svc', data });
    } catch (e) {
      t.fail(`${type}: ${(e as Error).message}`);
      continue;
    }
    const stored = runtime.read({ id }, 'stored').json();
    runtime.write({ id, type, data: runtime.read({ id }).json().data });
    t.same(runtime.read({ id }, 'stored').json(), stored, `${type}: accepted; a read written back is the same block`);
    t.equal(created.type, type);
  }
  const sys = runtime.read({ id: 'SysInfo' }).json();
  const patched = runtime.patch({
    id: 'SysInfo',
    type: 'SysInfo',
    data: {
      deviceId: 'x',
      version: 'x',
      platform: 'PLATFORM_ESP',
      protocolVersion: 'x',
      releaseDate: 'x',
      protocolDate: 'x',
      ip: '10.0.0.2',
      uptime: q(1, 's'),
      updatesPerSecond: 1,
      systemTime: '2024-11-24T02:00:00Z',
      timeZone: 'Europe/Amsterdam',
      tempUnit: 'TEMP_CELSIUS',
      displayBrightness: 200,
      voltage5: 5,
      voltageExternal: 12,
      memoryFree: 1,
      memoryFreeContiguous: 1,
      memoryFreeLowest: 1,
    },
  });
  t.equal(patched.data.deviceId, sys.data.deviceId, 'read-only SysInfo fields are not overwritten');
  t.same(
    [patched.data.timeZone, patched.data.displayBrightness, patched.data.tempUnit],
    ['Europe/Amsterdam', 200, 'TEMP_CELSIUS'],
  );
});
