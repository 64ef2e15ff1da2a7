// Every block type the runtime knows. A new type is one file plus one line here.
import type { BlockTypeDef } from '../runtime/types.js';
import { ActuatorAnalogMock } from './actuator-analog-mock.js';
import { DigitalActuator } from './digital-actuator.js';
import { MockPins } from './mock-pins.js';
import { SetpointSensorPair } from './setpoint-sensor-pair.js';
import { SysInfo } from './sys-info.js';
import { TempSensorExternal } from './temp-sensor-external.js';
import { TempSensorMock } from './temp-sensor-mock.js';

export const blockTypes: BlockTypeDef<any, any>[] = [
  SysInfo,
  TempSensorMock,
  TempSensorExternal,
  SetpointSensorPair,
  ActuatorAnalogMock,
  MockPins,
  DigitalActuator,
];
