// The side-by-side bench's load generator, run as a child process (scripts/bench/side.ts):
// autocannon against one route for some seconds, then one JSON line on stdout with req/s, p99
// and the next free request number (created ids stay unique across runs).
//   load.js '{"url":..., "prefix":..., "load":"blocks/read", "seconds":3, "connections":50, "first":0, "pairs":100}'
import autocannon from 'autocannon';
import { fileURLToPath } from 'node:url';

export interface Load {
  name: string;
  path: string;
  /** The body of request number n (with `pairs` sensors s0..s{pairs-1} in place); none: `{}`. */
  body?: (n: number, pairs: number) => string;
}

export interface LoadResult {
  rps: number;
  p99: number;
  next: number;
}

export const loads: Load[] = [
  { name: 'blocks/read', path: '/blocks/read', body: (n, pairs) => JSON.stringify({ id: `s${n % pairs}` }) },
  { name: 'blocks/all/read', path: '/blocks/all/read' },
  {
    name: 'blocks/patch',
    path: '/blocks/patch',
    body: (n, pairs) =>
      JSON.stringify({ id: `s${n % pairs}`, type: 'TempSensorMock', data: { setting: 18 + (n % 7) } }),
  },
  {
    name: 'blocks/create',
    path: '/blocks/create',
    body: (n) => JSON.stringify({ id: `load ${n}`, type: 'TempSensorMock', data: { setting: 20 } }),
  },
];

async function run(args: {
  url: string;
  prefix: string;
  load: string;
  seconds: number;
  connections: number;
  first: number;
  pairs: number;
}): Promise<LoadResult> {
  const load = loads.find((l) => l.name === args.load);
  if (!load) throw new Error(`no load named ${args.load}`);
  let n = args.first;
  const result = await autocannon({
    url: args.url,
    connections: args.connections,
    duration: args.seconds,
    requests: [
      {
        method: 'POST',
        path: `${args.prefix}${load.path}`,
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: load.body ? load.body(n++, args.pairs) : '{}' }),
      },
    ],
  });
  if (result.errors || result.non2xx || result.timeouts)
    throw new Error(`${load.name}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts`);
  return { rps: result.requests.average, p99: result.latency.p99, next: n };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await run(JSON.parse(process.argv[2]!)))}\n`);
}
