// One button that stops all outputs (PUT settings/enabled false: the control loop stops and every
// output goes to its safe state) and says what it did; the same place resumes control.
import { useEffect, useState } from 'preact/hooks';
import { controllerUrl, put, get, readOnly } from './api';

export function ControlSwitch() {
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [said, setSaid] = useState('');
  useEffect(() => {
    void get<{ enabled: boolean }>(controllerUrl('settings/enabled')).then((a) => a.ok && setEnabled(a.body.enabled));
  }, []);
  const set = async (next: boolean) => {
    setSaid('sending…');
    const a = await put<{ enabled: boolean }>(controllerUrl('settings/enabled'), { enabled: next });
    if (!a.ok) return setSaid(a.error);
    setEnabled(a.body.enabled);
    setSaid(
      a.body.enabled
        ? 'Control resumed: blocks run and drive their outputs again.'
        : 'All outputs stopped: control is paused and every output is in its safe state (off). This stays so after a restart.',
    );
  };
  if (enabled === null || readOnly()) return null;
  return (
    <div class={`panel control ${enabled ? '' : 'stopped'}`} data-testid="control-switch">
      {enabled ? (
        <button type="button" class="danger" onClick={() => void set(false)}>
          Stop all outputs
        </button>
      ) : (
        <>
          <strong>Control is stopped: all outputs are off.</strong>{' '}
          <button type="button" onClick={() => void set(true)}>
            Resume control
          </button>
        </>
      )}
      {said && (
        <p class="answer" role="status">
          {said}
        </p>
      )}
    </div>
  );
}
