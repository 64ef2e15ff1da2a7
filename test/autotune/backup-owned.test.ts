// A backup carries what a PID's tuning keeps itself (its state, a proposal, the gains to undo),
// and a load brings it back as a restart does. A value of its own that does not decode (an older
// version's over-long message) is left out with a warning naming it; the block loads.
import t from 'tap';
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
