// `edgeblocks doctor` as a test runs it: the built CLI on a Pi laid out as its kernel does
// (pi-models.ts) with the emulated buses of --hardware sim, and the report's sections.
import type { Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CLI } from './cli.js';
import { limit } from './limits.js';
import { layOutPi, piModel, type PiOptions } from './pi-models.js';
import type { Config } from '../../src/config.js';
import type { Finding, Section } from '../../src/doctor/report.js';
import { serviceSection } from '../../src/doctor/service.js';

export type { Finding, Section };

export function doctor(args: string[], env: NodeJS.ProcessEnv = {}) {
  const res = spawnSync(process.execPath, [CLI, 'doctor', ...args], {
    encoding: 'utf8',
    timeout: limit(90000),
    killSignal: 'SIGKILL',
    env: { ...process.env, EDGEBLOCKS_CONFIG: undefined, EDGEBLOCKS_DATA_DIR: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

export function all(sections: Section[]): Section[] {
  return sections.flatMap((s) => [s, ...all(s.parts ?? [])]);
}

export function sectionNamed(sections: Section[], title: RegExp): Section {
  const found = all(sections).find((s) => title.test(s.title));
  if (!found)
    throw new Error(
      `no section ${title} in ${all(sections)
        .map((s) => s.title)
        .join(', ')}`,
    );
  return found;
}

/** A Pi, a sim config and a data dir in a test dir. */
export function setUp(t: Test, model: Parameters<typeof piModel>[0], sim: unknown, pi: PiOptions = {}) {
  const dir = t.testdir();
  const root = join(dir, 'root');
  const roots = layOutPi(piModel(model), root, pi);
  const simConfig = join(dir, 'sim.json');
  writeFileSync(simConfig, JSON.stringify(sim));
  const data = join(dir, 'data');
  mkdirSync(data);
  return {
    dir,
    root,
    roots,
    simConfig,
    data,
    args: ['--root', root, '--hardware', 'sim', '--sim-config', simConfig, '--data-dir', data],
  };
}

/** The doctor's section on the running service, asked of a stand-in answering `status` to every request. */
export async function serviceSectionFor(t: Test, status: unknown): Promise<Section> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(status));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const config = { host: '127.0.0.1', port, serviceId: 'edge-one' } as unknown as Config;
  return (await serviceSection(config, 1234)).section;
}
