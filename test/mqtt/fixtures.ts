// Shared fixtures of the MQTT tests: the two broker set-ups every test runs against, a
// recording MQTT client, and the built CLI as a child process.
import type { ChildProcess } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
import path from 'node:path';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { App } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { EmbeddedBroker } from '../../src/mqtt/broker.js';
import { spawnOwned, waitForOutput, type Owner } from '../helpers/children.js';
import { limit } from '../helpers/limits.js';
import { freePort, startMosquitto } from '../helpers/mosquitto.js';

import { ROOT } from '../helpers/root.js';

export { ROOT };
export const SERVICE_ID = 'edge-one';

export interface BusSetup {
  /** Config overrides that point the app under test at this broker. */
  overrides: Partial<Record<keyof Config, string>>;
  /** Where a test client reaches the broker the app uses. */
  brokerUrl(app: App): string;
  close(): Promise<void>;
}

export interface BusVariant {
  name: string;
  setup(): Promise<BusSetup>;
}

/** The app's own embedded broker (aedes), and an external Mosquitto. */
export const VARIANTS: BusVariant[] = [
  {
    name: 'embedded broker',
    setup: async () => ({
      overrides: { mqttUrl: 'embedded', mqttPort: '0' },
      brokerUrl: (app) => `mqtt://127.0.0.1:${app.mqtt.brokerPort}`,
      close: async () => undefined,
    }),
  },
  {
    name: 'mosquitto',
    setup: async () => {
      const broker = await startMosquitto();
      return { overrides: { mqttUrl: broker.url }, brokerUrl: () => broker.url, close: () => broker.stop() };
    },
  },
];

export interface Received {
  topic: string;
  payload: Buffer;
  retain: boolean;
  /** performance.now() at arrival */
  at: number;
  json(): any;
}

/** An MQTT 3.1.1 client that records every message it receives. */
export class Recorder {
  readonly messages: Received[] = [];
  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({
        topic,
        payload,
        retain: packet.retain,
        at: performance.now(),
        json: () => JSON.parse(payload.toString()),
      });
    });
  }

  static async connect(url: string, opts: IClientOptions = {}): Promise<Recorder> {
    const client = await mqtt.connectAsync(url, {
      protocolVersion: 4,
      reconnectPeriod: 50,
      connectTimeout: limit(5000),
      ...opts,
    });
    client.on('error', () => undefined);
    return new Recorder(client);
  }

  async subscribe(...filters: string[]): Promise<void> {
    await this.client.subscribeAsync(filters, { qos: 0 });
  }

  publish(topic: string, payload: string | Buffer, retain = false): Promise<unknown> {
    return this.client.publishAsync(topic, payload, { qos: 0, retain });
  }

  on(topic: string, from = 0): Received[] {
    return this.messages.slice(from).filter((m) => m.topic === topic);
  }

  /** The first message (from index `from`) matching `pred`, waiting up to `timeoutMs` (scaled) for it. */
  async waitFor(pred: (m: Received) => boolean, what: string, timeoutMs = 5000, from = 0): Promise<Received> {
    timeoutMs = limit(timeoutMs);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const hit = this.messages.slice(from).find((m) => {
        try {
          return pred(m);
        } catch {
          return false;
        }
      });
      if (hit) return hit;
      if (performance.now() > deadline)
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}; got ${this.messages.length} messages on ${[...new Set(this.messages.map((m) => m.topic))].join(', ')}`,
        );
      await sleep(10);
    }
  }

  async end(): Promise<void> {
    await this.client.endAsync(true);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  timeoutMs = limit(timeoutMs);
  const deadline = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** Wait until the app's broker connection is up with every subscription acknowledged. */
export async function untilSubscribed(app: App, timeoutMs = 5000): Promise<void> {
  await until(() => (app.mqtt.status() as { subscribed: boolean }).subscribed, 'the app to subscribe', timeoutMs);
}

export function topic(kind: 'state' | 'patch' | 'history', serviceId = SERVICE_ID, root = 'svc'): string {
  if (kind === 'patch') return `${root}/state/${serviceId}/patch`;
  return `${root}/${kind}/${serviceId}`;
}

export const controllerTopic = (action: string, root = 'svc') => `${root}/controller/blocks/${action}`;

// ---- the built CLI --------------------------------------------------------------------------

export const CLI = path.join(ROOT, 'dist/src/main.js');

/** Fails unless the CLI is built and not older than the sources these tests exercise. */
export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first with npx tsc -p tsconfig.json`);
  const built = statSync(path.join(ROOT, 'dist/src/mqtt/index.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sources = [
    path.join(ROOT, 'src/main.ts'),
    path.join(ROOT, 'src/app.ts'),
    ...readdirSync(path.join(ROOT, 'src/mqtt')).map((f) => path.join(ROOT, 'src/mqtt', f)),
  ];
  const stale = sources.filter((f) => statSync(f).mtimeMs > built);
  if (stale.length)
    throw new Error(
      `dist is older than ${stale.map((f) => path.relative(ROOT, f)).join(', ')}: rebuild with npx tsc -p tsconfig.json`,
    );
}

export interface Cli {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Spawn `node dist/src/main.js` and wait until its MQTT client is connected (killed on failure and at the owner's teardown). */
export async function spawnCli(args: string[], owner?: Owner, timeoutMs = 15000): Promise<Cli> {
  assertBuilt();
  const child = spawnOwned(
    process.execPath,
    [CLI, '--port', '0', '--https-port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
    owner,
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitForOutput(child, /mqtt connected to/, 'the CLI connecting to MQTT', limit(timeoutMs), () => out);
  return { child, output: () => out, exited };
}

// ---- brokers a test can kill and restart ------------------------------------------------------

export interface KillableBroker {
  url: string;
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Standalone brokers for the runtime to use as external ones: Mosquitto in its own process
 * (killed with SIGKILL), and the embedded broker's aedes set-up in the test process (closed:
 * every client connection drops, retained messages are lost, as in a broker crash).
 */
export const KILLABLE_BROKERS: Array<{ name: string; start(): Promise<KillableBroker> }> = [
  {
    name: 'embedded broker (aedes)',
    start: async () => {
      const port = await freePort();
      let broker: EmbeddedBroker | null = await EmbeddedBroker.start('127.0.0.1', port, silentLogger);
      const kill = async () => {
        await broker?.close();
        broker = null;
      };
      return {
        url: `mqtt://127.0.0.1:${port}`,
        kill,
        restart: async () => {
          broker = await EmbeddedBroker.start('127.0.0.1', port, silentLogger);
        },
        stop: kill,
      };
    },
  },
  { name: 'mosquitto', start: () => startMosquitto() },
];
