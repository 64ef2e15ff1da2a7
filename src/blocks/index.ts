// Every block type the runtime knows. A new type is one file plus one line here.
import type { BlockTypeDef } from '../runtime/types.js';
import { ActuatorAnalogMock } from './actuator-analog-mock.js';
import { DigitalActuator } from './digital-actuator.js';
import { DS2408 } from './ds2408.js';
import { DS2413 } from './ds2413.js';
import { GpioPins } from './gpio-pins.js';
import { MockPins } from './mock-pins.js';
import { OneWireBus } from './one-wire-bus.js';
import { SetpointSensorPair } from './setpoint-sensor-pair.js';
import { SysInfo } from './sys-info.js';
import { TempSensorExternal } from './temp-sensor-external.js';
import { TempSensorMock } from './temp-sensor-mock.js';
import { TempSensorOneWire } from './temp-sensor-one-wire.js';

export const blockTypes: BlockTypeDef<any, any>[] = [
  SysInfo,
  TempSensorMock,
  TempSensorExternal,
  SetpointSensorPair,
  ActuatorAnalogMock,
  MockPins,
  DigitalActuator,
  // Hardware blocks
  TempSensorOneWire,
  DS2408,
  DS2413,
  OneWireBus,
  GpioPins,
];
