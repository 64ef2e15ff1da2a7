// The fermentation-fridge chain of Brewblox's quick start, in this API's block shapes: beer and
// fridge setpoints, a mutex, cooler and heater actuators with their constraints, slow cool PWM
// and fast heat PWM, a profile on the active setpoint, and a cool and a heat PID. Every
// temperature and gain names its unit (`kp[1/degC]`): a bare number is read in the user's unit,
// and the chain is the same whichever that is.
import type { Block } from './api.js';

export interface Channel {
  blockId: string;
  channel: number;
  claimedBy: string | null;
  /** The name the configuration gives the channel's line (GpioPins: `gpio[].name`, e.g. "fan"). */
  name?: string;
}

/** A channel as a brewer knows it: by its configured name when it has one. */
export function channelLabel(c: Channel): string {
  const where = `${c.blockId} channel ${c.channel}`;
  return `${c.name ? `${c.name} (${where})` : where}${c.claimedBy ? ` (now used by ${c.claimedBy})` : ''}`;
}

export interface FridgeChoice {
  prefix: string;
  beerSensor: string;
  fridgeSensor: string;
  heat: Channel;
  cool: Channel;
  beerSetting: number;
  fridgeSetting: number;
  /** The unit the two settings were typed in. */
  unit: 'degC' | 'degF';
  mode: 'beer' | 'fridge';
}

const link = (id: string | null) => ({ __objtype: 'Link', id });
const HOUR = 3600;
/** The profile's rise after a week (the diacetyl rest), in °C. */
const RISE_DEG_C = 3;

export function fridgeNames(prefix: string) {
  const n = (s: string) => (prefix ? `${prefix} ${s}` : s);
  return {
    fridgeSetpoint: n('Fridge Setpoint'),
    beerSetpoint: n('Beer Setpoint'),
    mutex: n('Mutex'),
    coolAct: n('Cool Actuator'),
    heatAct: n('Heat Actuator'),
    coolPwm: n('Cool PWM'),
    heatPwm: n('Heat PWM'),
    profile: n('Profile'),
    coolPid: n('Cool PID'),
    heatPid: n('Heat PID'),
  };
}

/** The first of "Ferment", "Ferment 2", "Ferment 3", ... none of whose block names is in use. */
export function freePrefix(inUse: (name: string) => boolean, base = 'Ferment'): string {
  for (let n = 1; ; n++) {
    const prefix = n === 1 ? base : `${base} ${n}`;
    if (!Object.values(fridgeNames(prefix)).some(inUse)) return prefix;
  }
}

/** Blocks in creation order (every link points at a block created before it). */
export function fridgeBlocks(c: FridgeChoice): Array<Omit<Block, 'serviceId'>> {
  const names = fridgeNames(c.prefix);
  const beer = c.mode === 'beer';
  const active = beer ? names.beerSetpoint : names.fridgeSetpoint;
  const setting = beer ? c.beerSetting : c.fridgeSetting;
  // PID tuning of the quick start, per °C: beer mode is slower and stronger than fridge mode.
  const cool = beer ? { 'kp[1/degC]': -50, ti: 6 * HOUR, td: 1800 } : { 'kp[1/degC]': -20, ti: 2 * HOUR, td: 600 };
  const heat = beer ? { 'kp[1/degC]': 100, ti: 6 * HOUR, td: 1800 } : { 'kp[1/degC]': 20, ti: 2 * HOUR, td: 600 };
  const temperature = `temperature[${c.unit}]`;
  const rise = c.unit === 'degF' ? (RISE_DEG_C * 9) / 5 : RISE_DEG_C;
  const setpoint = (sensor: string, value: number) => ({
    enabled: true,
    sensorId: link(sensor),
    [`storedSetting[${c.unit}]`]: value,
    filter: 'FILTER_15s',
    'filterThreshold[delta_degC]': 5,
  });
  const meta = { wizard: 'fermentation-fridge' };
  return [
    { id: names.fridgeSetpoint, type: 'SetpointSensorPair', data: setpoint(c.fridgeSensor, c.fridgeSetting), meta },
    { id: names.beerSetpoint, type: 'SetpointSensorPair', data: setpoint(c.beerSensor, c.beerSetting), meta },
    { id: names.mutex, type: 'Mutex', data: {}, meta },
    {
      id: names.coolAct,
      type: 'DigitalActuator',
      data: {
        hwDevice: link(c.cool.blockId),
        channel: c.cool.channel,
        storedState: 'STATE_INACTIVE',
        invert: false,
        constraints: {
          minOff: { enabled: true, duration: 300 },
          minOn: { enabled: true, duration: 120 },
          mutexed: { enabled: true, mutexId: link(names.mutex), extraHoldTime: 45 * 60 },
        },
      },
      meta,
    },
    {
      id: names.heatAct,
      type: 'DigitalActuator',
      data: {
        hwDevice: link(c.heat.blockId),
        channel: c.heat.channel,
        storedState: 'STATE_INACTIVE',
        invert: false,
        constraints: { mutexed: { enabled: true, mutexId: link(names.mutex), extraHoldTime: 20 * 60 } },
      },
      meta,
    },
    {
      id: names.coolPwm,
      type: 'ActuatorPwm',
      data: { enabled: true, period: 30 * 60, actuatorId: link(names.coolAct) },
      meta,
    },
    {
      id: names.heatPwm,
      type: 'ActuatorPwm',
      data: { enabled: true, period: 10, actuatorId: link(names.heatAct) },
      meta,
    },
    {
      id: names.profile,
      type: 'SetpointProfile',
      data: {
        enabled: false,
        start: new Date().toISOString(),
        targetId: link(active),
        points: [
          { time: 0, [temperature]: setting },
          { time: 7 * 24 * HOUR, [temperature]: setting },
          { time: 10 * 24 * HOUR, [temperature]: setting + rise },
        ],
      },
      meta,
    },
    {
      id: names.coolPid,
      type: 'Pid',
      data: { enabled: true, inputId: link(active), outputId: link(names.coolPwm), ...cool },
      meta,
    },
    {
      id: names.heatPid,
      type: 'Pid',
      data: { enabled: true, inputId: link(active), outputId: link(names.heatPwm), ...heat },
      meta,
    },
  ];
}
