// Control of the emulated hardware, only in sim mode: list devices and buses, plug and unplug
// devices, force temperatures (degC) or give them back to the plant, inject and clear faults,
// read and change the plant, set GPIO input levels. Devices are named by their sim config
// name, their address (16 hex digits) or their kernel name (28-...).
import type { FastifyPluginAsync } from 'fastify';
import { simTemperatureRange } from '../../drivers/sim/sim-config.js';
import { SimNotFoundError, type SimFault, type SimHardware } from '../../drivers/sim/sim-hardware.js';
import { isPlainObject } from '../codec/decode.js';
import { HttpError } from './errors.js';

type Body = Record<string, unknown>;

function body(raw: unknown, required: boolean): Body {
  if (raw === undefined && !required) return {};
  if (!isPlainObject(raw))
    throw new HttpError(
      raw === undefined ? 422 : 400,
      'the body must be a JSON object',
      raw === undefined ? [{ path: 'body', message: 'required' }] : undefined,
    );
  return raw;
}

function invalid(path: string, message: string): HttpError {
  return new HttpError(422, `${path}: ${message}`, [{ path, message }]);
}

function onlyKeys(b: Body, allowed: string[]): void {
  for (const k of Object.keys(b))
    if (!allowed.includes(k)) throw invalid(k, `unknown field; known: ${allowed.join(', ')}`);
}

function finite(b: Body, key: string, min: number, max: number, required: boolean): number | undefined {
  const v = b[key];
  if (v === undefined) {
    if (required) throw invalid(key, 'required');
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(key, `must be a number, got ${JSON.stringify(v)}`);
  if (v < min || v > max) throw invalid(key, `must be between ${min} and ${max}, got ${v}`);
  return v;
}

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

const DEVICE_FAULTS: SimFault[] = ['crc', 'power-on', 'zero', 'open', 'short-gnd', 'short-vcc', 'clear'];
const BUS_FAULTS = ['short', 'cut', 'clear'] as const;

export function simRoutes(sim: SimHardware): FastifyPluginAsync {
  return async (app) => {
    const tags = ['sim'];
    const doc = (summary: string) => ({ schema: { tags, summary } });
    const device = (key: string) => run(() => sim.describeDevice(sim.device(key)));

    app.get('/sim/devices', doc('Emulated 1-Wire devices'), async () =>
      sim.devices().map((d) => sim.describeDevice(d)),
    );
    app.get<{ Params: { device: string } }>('/sim/devices/:device', doc('One emulated device'), async (req) =>
      device(req.params.device),
    );
    app.post<{ Params: { device: string } }>(
      '/sim/devices/:device/plug',
      doc('Plug a device in (it powers up)'),
      async (req) => {
        run(() => sim.plug(req.params.device, true));
        return device(req.params.device);
      },
    );
    app.post<{ Params: { device: string } }>(
      '/sim/devices/:device/unplug',
      doc('Pull a device off its bus'),
      async (req) => {
        run(() => sim.plug(req.params.device, false));
        return device(req.params.device);
      },
    );
    app.post<{ Params: { device: string } }>(
      '/sim/devices/:device/temperature',
      doc('Force a sensor temperature in degC ({"value": 21.5}); {"value": null} follows the plant again'),
      async (req) => {
        const b = body(req.body, true);
        onlyKeys(b, ['value']);
        if (!('value' in b)) throw invalid('value', 'required (degC, or null to follow the plant)');
        const [lo, hi] = simTemperatureRange(run(() => sim.device(req.params.device)).spec.type);
        const value = b.value === null ? null : finite(b, 'value', lo, hi, true)!;
        run(() => sim.setTemperature(req.params.device, value));
        return device(req.params.device);
      },
    );
    app.post<{ Params: { device: string } }>(
      '/sim/devices/:device/fault',
      doc(
        'Inject a fault: {"fault": "crc"|"power-on"|"zero"|"open"|"short-gnd"|"short-vcc"|"clear", "count": n|"always"} (count: crc frames; open/short-*: MAX31850 thermocouple)',
      ),
      async (req) => {
        const b = body(req.body, true);
        onlyKeys(b, ['fault', 'count']);
        const fault = b.fault as SimFault;
        if (!DEVICE_FAULTS.includes(fault))
          throw invalid('fault', `must be one of ${DEVICE_FAULTS.join(', ')}, got ${JSON.stringify(b.fault)}`);
        let count = 1;
        if (b.count !== undefined) {
          if (fault !== 'crc') throw invalid('count', 'only applies to the crc fault');
          if (b.count === 'always') count = Infinity;
          else if (typeof b.count === 'number' && Number.isInteger(b.count) && b.count >= 1) count = b.count;
          else throw invalid('count', `must be a positive integer or "always", got ${JSON.stringify(b.count)}`);
        }
        run(() => sim.injectFault(req.params.device, fault, count));
        return device(req.params.device);
      },
    );

    app.get('/sim/buses', doc('Emulated 1-Wire buses (segments)'), async () =>
      sim.segments().map((s) => sim.describeSegment(s)),
    );
    app.post<{ Params: { bus: string } }>(
      '/sim/buses/:bus/fault',
      doc('Bus fault: {"fault": "short"|"cut"|"clear"}'),
      async (req) => {
        const b = body(req.body, true);
        onlyKeys(b, ['fault']);
        const fault = b.fault as (typeof BUS_FAULTS)[number];
        if (!BUS_FAULTS.includes(fault))
          throw invalid('fault', `must be one of ${BUS_FAULTS.join(', ')}, got ${JSON.stringify(b.fault)}`);
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
    app.post(
      '/sim/plant',
      doc('Change the plant: {"ambient", "fermentationW", "beer", "air"} (degC, W); beer/air restart it there'),
      async (req) => {
        const b = body(req.body, true);
        onlyKeys(b, ['ambient', 'fermentationW', 'beer', 'air']);
        sim.modifyPlant({
          ambient: finite(b, 'ambient', -40, 80, false),
          fermentationW: finite(b, 'fermentationW', 0, 1000, false),
          beer: finite(b, 'beer', -10, 100, false),
          air: finite(b, 'air', -40, 100, false),
        });
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
    app.post<{ Params: { line: string } }>(
      '/sim/gpio/:line/level',
      doc('Drive an input line from outside: {"level": 0|1}'),
      async (req) => {
        const b = body(req.body, true);
        onlyKeys(b, ['level']);
        if (b.level !== 0 && b.level !== 1) throw invalid('level', `must be 0 or 1, got ${JSON.stringify(b.level)}`);
        const g = sim.config.gpio.find((x) => x.name === req.params.line || String(x.line) === req.params.line);
        if (!g)
          throw new HttpError(
            404,
            `no emulated GPIO line '${req.params.line}'; lines: ${sim.config.gpio.map((x) => x.name).join(', ') || 'none'}`,
          );
        if (g.direction !== 'in')
          throw invalid('line', `'${g.name}' is an output; only inputs can be driven from outside`);
        sim.gpio.setInput(g.line, b.level);
        return { ...sim.gpio.state(g.line), name: g.name };
      },
    );
  };
}
