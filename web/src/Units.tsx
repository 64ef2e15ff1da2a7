// The temperature unit on the Setup page: the service's `units` datastore document, set by a
// radio that shows the unit the service speaks now.
import { useState } from 'preact/hooks';
import { controller, post, serviceId, type Block } from './api';
import { unitLabel } from './blocks';
import { applyAll, live } from './live';

/** The unit radio: it shows the unit the service speaks (the status), which follows a choice made here at once. */
export function Units({ unit }: { unit: string }) {
  const [text, setText] = useState('');
  const choose = async (temperature: string) => {
    setText('sending…');
    const a = await post('/history/datastore/set', { value: { namespace: serviceId(), id: 'units', temperature } });
    if (!a.ok) return setText(a.error);
    // The service converts every value to the new unit; show them now, not at the next state event.
    const all = await controller<Block[]>('blocks/all/read');
    applyAll(all.ok ? all.body : [...live().blocks.values()], { temperature });
    setText(`temperatures now in ${unitLabel(temperature)}`);
  };
  return (
    <section class="panel" data-testid="units">
      <h2>Units</h2>
      {['degC', 'degF'].map((u) => (
        <label class="toggle">
          <input type="radio" name="unit" value={u} checked={unit === u} onChange={() => void choose(u)} />{' '}
          {unitLabel(u)}
        </label>
      ))}
      {text && (
        <p class="answer" role="status">
          {text}
        </p>
      )}
    </section>
  );
}
