// A backup carries what a PID's tuning keeps itself (its state, a proposal, the gains to undo),
// and a load brings it back as a restart does. A value of its own that does not decode (an older
// version's over-long message) is left out with a warning naming it; the block loads.
import t from 'tap';
import { Fermenter } from '../helpers/fermenter.js';
import { testRuntime } from '../helpers/runtime.js';

t.test("a backup's tuning values of the block's own: back on load, or left out with a warning", async (t) => {
  const { runtime } = testRuntime();
  runtime.create({ id: 'PID', type: 'Pid', data: { kp: 42, ti: 3600 } });
  const saved = runtime.backupSave() as unknown as { blocks: { id: string; data: Record<string, any> }[] };
  const pid = saved.blocks.find((b) => b.id === 'PID')!;
  // As a version that did not clip its texts saved it, with a proposal beside the message.
  pid.data.tuning.message = `stopped: ${'x'.repeat(400)}`;
  pid.data.tuning.state = 'ABORTED';
  pid.data.tuning.previous.kp = 17;
  const result = await runtime.backupLoad(JSON.parse(JSON.stringify(saved)));
  t.same(result.failures, [], 'nothing failed');
  t.match(result.warnings, [
    /block \d+ \(id 'PID'.*field 'tuning\.message' dropped \(a value the block keeps itself that does not decode/,
  ]);
  const data = runtime.find('PID')!.data as Record<string, any>;
  t.equal(data.kp, 42, 'the block loads');
  t.equal(data.tuning.message, '', 'without the message');
  t.equal(data.tuning.state, 'ABORTED', 'with the state it kept');
  t.equal(data.tuning.previous.kp, 17, 'and the gains to undo');
});

t.test('a backup loaded while a tuning runs says what became of it', async (t) => {
  const f = new Fermenter({
    setpoint: 20,
    stepMs: 1000,
    plant: { ambient: 20, initial: { beer: 20, air: 20 } },
  }).build();
  await f.run(600);
  const idle = JSON.parse(JSON.stringify(f.runtime.backupSave()));
  const start = () => f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'START' } } });
  start();
  await f.run(60);
  t.equal(f.data('Heat PID').tuning.state, 'RUNNING');
  const running = JSON.parse(JSON.stringify(f.runtime.backupSave()));

  const ended = await f.runtime.backupLoad(idle);
  t.same(ended.warnings, ["block 'Heat PID': a tuning (cycle 0 of 4) was under way; it ended with the load"]);
  t.equal(f.data('Heat PID').tuning.state, 'IDLE', 'the PID as the backup has it');
  await f.run(60);
  t.equal(f.data('Cool PID').tuning.tunedBy, null, 'the pair is its own again');

  start();
  await f.run(60);
  const resumed = await f.runtime.backupLoad(running);
  t.same(resumed.warnings, [
    "block 'Heat PID': a tuning (cycle 0 of 4) was under way; the backup's block has a tuning (cycle 0 of 4), which resumes as after a restart",
  ]);
  await f.run(60);
  t.equal(f.data('Heat PID').tuning.state, 'RUNNING');
  t.match(f.data('Heat PID').tuning.message, /resumed after a restart/);
});
