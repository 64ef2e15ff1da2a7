// The built CLI (emulated hardware) under a moved clock (libfaketime), for the dashboard's tests
// of the controller's clock against the browser's: its API and its own idea of now.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { killAndWait } from '../helpers/children.js';
import { postJson, startCli } from '../helpers/cli.js';
import { movedClock } from '../helpers/faketime.js';
import { removeDir } from './browser.js';

/** Starts the controller with its clock moved (`-10h`, `@1970-01-02 00:00:00`); stopped at the test's end. */
export async function movedController(t: Test, prefix: string, move: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  t.teardown(() => removeDir(dir));
  const clock = movedClock(dir);
  clock.move(move);
  const cli = await startCli(
    ['--hardware', 'sim', '--data-dir', path.join(dir, 'data'), '--mqtt-port', '0', '--emit-interval', '500'],
    clock.env,
    t,
  );
  t.teardown(() => killAndWait(cli.child, 'SIGTERM'));
  /** A block API call that must succeed: its body. */
  const api = async (route: string, body: unknown) => {
    const res = await postJson(`${cli.base}/edge-one/${route}`, body);
    if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** The controller's now (epoch ms), as its status says. */
  const controllerNow = async () =>
    Date.parse(((await (await fetch(`${cli.base}/edge-one/system/status`)).json()) as any).clock.now);
  return { cli, clock, api, controllerNow };
}
