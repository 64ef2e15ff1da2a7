// Every block type the runtime knows. A new type is one file plus one line here; the I2C IO
// chips' types come from the chip registry (i2c-io-chips.ts).
import type { BlockTypeDef } from '../runtime/types.js';
import { ActuatorAnalogMock } from './actuator-analog-mock.js';
import { ActuatorLogic } from './actuator-logic.js';
import { ActuatorOffset } from './actuator-offset.js';
import { ActuatorPwm } from './actuator-pwm.js';
import { AnalogSensorI2c } from './analog-sensor-i2c.js';
import { Balancer } from './balancer.js';
import { DigitalActuator } from './digital-actuator.js';
import { DigitalInput } from './digital-input.js';
import { DS2408 } from './ds2408.js';
import { DS2413 } from './ds2413.js';
import { EnvSensorI2c } from './env-sensor-i2c.js';
import { FastPwm } from './fast-pwm.js';
import { GpioPins } from './gpio-pins.js';
import { i2cIoBlocks } from './i2c-io-chips.js';
import { MockPins } from './mock-pins.js';
import { MotorValve } from './motor-valve.js';
import { Mutex } from './mutex.js';
import { OneWireBus } from './one-wire-bus.js';
import { Pid } from './pid.js';
import { Sequence } from './sequence.js';
import { SetpointProfile } from './setpoint-profile.js';
import { SetpointSensorPair } from './setpoint-sensor-pair.js';
import { SysInfo } from './sys-info.js';
import { TempSensorCombi } from './temp-sensor-combi.js';
import { TempSensorExternal } from './temp-sensor-external.js';
import { TempSensorMock } from './temp-sensor-mock.js';
import { TempSensorOneWire } from './temp-sensor-one-wire.js';
import { TempSensorThermocouple } from './temp-sensor-thermocouple.js';
import { Variables } from './variables.js';

export const blockTypes: BlockTypeDef<any, any>[] = [
  SysInfo,
  TempSensorMock,
  TempSensorExternal,
  SetpointSensorPair,
  ActuatorAnalogMock,
  MockPins,
  DigitalActuator,
  // Control blocks
  Pid,
  ActuatorPwm,
  FastPwm,
  ActuatorOffset,
  TempSensorCombi,
  SetpointProfile,
  ActuatorLogic,
  DigitalInput,
  Mutex,
  Balancer,
  Variables,
  Sequence,
  // Hardware blocks
  TempSensorOneWire,
  DS2408,
  DS2413,
  MotorValve,
  OneWireBus,
  GpioPins,
  EnvSensorI2c,
  TempSensorThermocouple,
  AnalogSensorI2c,
  ...i2cIoBlocks,
];
