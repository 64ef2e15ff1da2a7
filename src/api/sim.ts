// Control of the emulated hardware, only in sim mode: list devices and buses, plug and unplug
// devices, force temperatures (degC) or give them back to the plant, inject and clear faults,
// read and change the plant, set GPIO input levels. Devices are named by their sim config
// name, their address (16 hex digits) or their kernel name (28-...).
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { simTemperatureRange } from '../../drivers/sim/sim-config.js';
import { SimNotFoundError, type SimFault } from '../../drivers/sim/sim-devices.js';
import type { SimHardware } from '../../drivers/sim/sim-hardware.js';
import { HttpError } from './errors.js';
import { NoBody } from './route-validation.js';

function invalid(path: string, message: string): HttpError {
  return new HttpError(422, `${path}: ${message}`, [{ path, message }]);
}

const strict = { additionalProperties: false } as const;
const oneOf = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

const DEVICE_FAULTS = [
  'crc',
  'power-on',
  'zero',
  'open',
  'short-gnd',
  'short-vcc',
  'clear',
] as const satisfies SimFault[];
const BUS_FAULTS = ['short', 'cut', 'clear'] as const;

const Device = Type.Object({
  device: Type.String({ description: 'sim config name, address or kernel name (28-...)' }),
});
const Bus = Type.Object({ bus: Type.String() });
const Line = Type.Object({ line: Type.String({ description: 'name or number of the line' }) });
const Temperature = Type.Object(
  { value: Type.Union([Type.Number(), Type.Null()], { description: 'degC, or null to follow the plant again' }) },
  strict,
);
const DeviceFault = Type.Object(
  {
    fault: oneOf(DEVICE_FAULTS),
    count: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('always')], { description: 'crc only: frames to spoil' }),
    ),
  },
  strict,
);
const BusFault = Type.Object({ fault: oneOf(BUS_FAULTS) }, strict);
const Plant = Type.Object(
  {
    ambient: Type.Optional(Type.Number({ minimum: -40, maximum: 80, description: 'degC' })),
    fermentationW: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'W' })),
    beer: Type.Optional(Type.Number({ minimum: -10, maximum: 100, description: 'degC; restarts the plant there' })),
    air: Type.Optional(Type.Number({ minimum: -40, maximum: 100, description: 'degC; restarts the plant there' })),
  },
  strict,
);
const Level = Type.Object({ level: Type.Union([Type.Literal(0), Type.Literal(1)]) }, strict);

/** Maps the emulation's lookup failures to 404 and its range errors to 422. */
function run<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SimNotFoundError) throw new HttpError(404, e.message);
    if (e instanceof RangeError) throw invalid('device', e.message);
    throw e;
  }
}

export function simRoutes(sim: SimHardware): FastifyPluginAsync {
  return async (app) => {
    const tags = ['sim'];
    const doc = (summary: string, input: { params?: TSchema; body?: TSchema } = {}) => ({
      schema: { tags, summary, ...input },
    });
    const device = (key: string) => run(() => sim.describeDevice(sim.device(key)));

    app.get('/sim/devices', doc('Emulated 1-Wire devices'), async () =>
      sim.devices().map((d) => sim.describeDevice(d)),
    );
    app.get<{ Params: Static<typeof Device> }>(
      '/sim/devices/:device',
      doc('One emulated device', { params: Device }),
      async (req) => device(req.params.device),
    );
    app.post<{ Params: Static<typeof Device> }>(
      '/sim/devices/:device/plug',
      doc('Plug a device in (it powers up)', { params: Device, body: NoBody }),
      async (req) => {
        run(() => sim.plug(req.params.device, true));
        return device(req.params.device);
      },
    );
    app.post<{ Params: Static<typeof Device> }>(
      '/sim/devices/:device/unplug',
      doc('Pull a device off its bus', { params: Device, body: NoBody }),
      async (req) => {
        run(() => sim.plug(req.params.device, false));
        return device(req.params.device);
      },
    );
    app.post<{ Params: Static<typeof Device>; Body: Static<typeof Temperature> }>(
      '/sim/devices/:device/temperature',
      doc('Force a sensor temperature in degC ({"value": 21.5}); {"value": null} follows the plant again', {
        params: Device,
        body: Temperature,
      }),
      async (req) => {
        const { value } = req.body;
        // The range depends on the device's type, so it is checked here, not by the schema.
        const [lo, hi] = simTemperatureRange(run(() => sim.device(req.params.device)).spec.type);
        if (value !== null && (value < lo || value > hi))
          throw invalid('value', `must be between ${lo} and ${hi} for this device, got ${value}`);
        run(() => sim.setTemperature(req.params.device, value));
        return device(req.params.device);
      },
    );
    app.post<{ Params: Static<typeof Device>; Body: Static<typeof DeviceFault> }>(
      '/sim/devices/:device/fault',
      doc(
        'Inject a fault: {"fault": "crc"|"power-on"|"zero"|"open"|"short-gnd"|"short-vcc"|"clear", "count": n|"always"} (count: crc frames; open/short-*: MAX31850 thermocouple)',
        { params: Device, body: DeviceFault },
      ),
      async (req) => {
        const { fault, count } = req.body;
        if (count !== undefined && fault !== 'crc') throw invalid('count', 'only applies to the crc fault');
        run(() => sim.injectFault(req.params.device, fault, count === 'always' ? Infinity : (count ?? 1)));
        return device(req.params.device);
      },
    );

    app.get('/sim/buses', doc('Emulated 1-Wire buses (segments)'), async () =>
      sim.segments().map((s) => sim.describeSegment(s)),
    );
    app.post<{ Params: Static<typeof Bus>; Body: Static<typeof BusFault> }>(
      '/sim/buses/:bus/fault',
      doc('Bus fault: {"fault": "short"|"cut"|"clear"}', { params: Bus, body: BusFault }),
      async (req) => {
        const { fault } = req.body;
        const seg = run(() => sim.segment(req.params.bus));
        sim.setShort(seg.name, fault === 'short');
        sim.setCut(seg.name, fault === 'cut');
        return sim.describeSegment(seg);
      },
    );
    app.post(
      '/sim/faults/clear',
      doc(
        'Clear every device and bus fault and release forced temperatures (sensors follow the plant again); unplugged devices stay unplugged',
        { body: NoBody },
      ),
      async () => {
        sim.clearFaults();
        return {
          devices: sim.devices().map((d) => sim.describeDevice(d)),
          buses: sim.segments().map((s) => sim.describeSegment(s)),
        };
      },
    );

    app.get('/sim/plant', doc('The thermal plant: temperatures (degC), actuator duty, settings'), async () =>
      sim.plantStatus(),
    );
    app.post<{ Body: Static<typeof Plant> }>(
      '/sim/plant',
      doc('Change the plant: {"ambient", "fermentationW", "beer", "air"} (degC, W); beer/air restart it there', {
        body: Plant,
      }),
      async (req) => {
        sim.modifyPlant(req.body);
        return sim.plantStatus();
      },
    );

    app.get('/sim/gpio', doc('Emulated GPIO lines with their physical levels'), async () =>
      sim.config.gpio.map((g) => ({
        ...sim.gpio.state(g.line),
        name: g.name,
        direction: g.direction,
        activeLow: g.activeLow,
        drives: g.drives,
      })),
    );
    app.post<{ Params: Static<typeof Line>; Body: Static<typeof Level> }>(
      '/sim/gpio/:line/level',
      doc('Drive an input line from outside: {"level": 0|1}', { params: Line, body: Level }),
      async (req) => {
        const g = sim.config.gpio.find((x) => x.name === req.params.line || String(x.line) === req.params.line);
        if (!g)
          throw new HttpError(
            404,
            `no emulated GPIO line '${req.params.line}'; lines: ${sim.config.gpio.map((x) => x.name).join(', ') || 'none'}`,
          );
        if (g.direction !== 'in')
          throw invalid('line', `'${g.name}' is an output; only inputs can be driven from outside`);
        sim.gpio.setInput(g.line, req.body.level);
        return { ...sim.gpio.state(g.line), name: g.name };
      },
    );
  };
}
