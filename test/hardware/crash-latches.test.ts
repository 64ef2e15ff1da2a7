// Outputs a kill -9 left on, at the next start. A DS2408 keeps its latches while it has power, and
// a crash of the service does not power-cycle it (under systemd the failsafe switches them off
// after the crash; run by hand, nothing does), so the restarted service finds the relays as the
// dead one left them: the emulated module starts so (`leftOn` in the sim config). What the stored
// blocks say must hold from the first write on: an actuator stored on stays on, never off for a
// moment (a compressor with a minimum off time would then wait it out), one stored off goes off,
// at once even with a minimum on time or a delayed off (how long it has been on is not known, and
// the brewer's off is what is stored), and so does one no block drives.
// Needs `npm run build`.
// tags: slow (kill -9 of the built CLI)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { postJson, startCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { leftOnSim } from './relay-boards.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const seconds = (value: number) => ({ __objtype: 'Quantity', unit: 's', value });

const sim = (leftOn: number[]) => leftOnSim(leftOn);

t.test(
  'after a kill -9 with relays on, the restart holds on what is stored on and switches off the rest',
  async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-crash-latches-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const simFile = path.join(dir, 'sim.json');
    const args = [
      '--data-dir',
      path.join(dir, 'data'),
      '--mqtt-port',
      '0',
      '--hardware',
      'sim',
      '--sim-config',
      simFile,
    ];
    writeFileSync(simFile, JSON.stringify(sim([])));
    let cli = await startCli(args, {}, t);
    const api = () => `${cli.base}/edge-one`;
    const post = async (route: string, body?: unknown) => {
      const res = await postJson(`${api()}/${route}`, body);
      if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const relays = async () => (await (await fetch(`${api()}/sim/devices/relays`)).json()) as any;
    const read = async (id: string) => (await post('blocks/read', { id })).data;

    await post('blocks/discover');
    const actuator = (id: string, channel: number) =>
      post('blocks/create', {
        id,
        type: 'DigitalActuator',
        data: { hwDevice: link('DS2408 0000000000d1'), channel, storedState: 'STATE_ACTIVE' },
      });
    await actuator('Compressor', 1);
    await actuator('Pump', 2);
    await actuator('Lamp', 3);
    await until(async () => (await relays()).activeChannels.join() === '1,2,3', 'the three relays on');
    // Its minimum off time once it runs (a new actuator finds its output off since it was made).
    await post('blocks/patch', {
      id: 'Compressor',
      type: 'DigitalActuator',
      data: { constraints: { minOff: { duration: seconds(300), enabled: true } } },
    });
    // The lamp switched off while its minimum on time holds it on, and the kill: the module still
    // has all three on, and the lamp is stored off.
    await post('blocks/patch', {
      id: 'Lamp',
      type: 'DigitalActuator',
      data: {
        constraints: {
          minOn: { duration: seconds(600), enabled: true },
          delayedOff: { duration: seconds(600), enabled: true },
        },
      },
    });
    await post('blocks/patch', { id: 'Lamp', type: 'DigitalActuator', data: { storedState: 'STATE_INACTIVE' } });
    t.equal((await read('Lamp')).constraints.minOn.limiting, true, 'the lamp is held on by its minimum on time');
    cli.child.kill('SIGKILL');
    await cli.exited;

    // Channel 4 on too, with no block on it (its actuator deleted, the kill before that write went out).
    writeFileSync(simFile, JSON.stringify(sim([1, 2, 3, 4])));
    cli = await startCli(args, {}, t);
    t.teardown(() => cli.child.kill('SIGKILL'));
    // The lamp read back off: the module was read and the service's first write reached it.
    await until(async () => (await read('Lamp')).state === 'STATE_INACTIVE', 'the lamp read off');
    const module = await relays();
    t.same(
      module.switchedOffChannels,
      [3, 4],
      'the lamp and the channel no block drives were switched off; the compressor and pump were held on',
    );
    t.same(module.activeChannels, [1, 2], 'the compressor and the pump are on');
    const compressor = await read('Compressor');
    t.equal(compressor.state, 'STATE_ACTIVE');
    t.equal(compressor.constraints.minOff.limiting, false, 'the compressor does not wait out a minimum off time');
    t.equal((await read('Pump')).state, 'STATE_ACTIVE');
    const lamp = await read('Lamp');
    t.equal(lamp.constraints.minOn.limiting, false, 'the lamp is not held on for a minimum on time');
    t.equal(lamp.constraints.delayedOff.limiting, false, 'nor for its delayed off');
  },
);
