// One button that stops all outputs (PUT settings/enabled false: the control loop stops and every
// output goes to its safe state) and says what it did; the same place resumes control. It shows
// control as the service has it: set elsewhere (another tab, a phone, the API), the next state
// event turns it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { controllerUrl, put, get, readOnly } from './api';
import { useLiveStatus } from './live';

export function ControlSwitch() {
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [said, setSaid] = useState('');
  /** What the switch shows now, for the check below (which runs outside a render). */
  const shown = useRef<boolean | null>(null);
  shown.current = enabled;
  const status = useLiveStatus();
  const read = () =>
    get<{ enabled: boolean }>(controllerUrl('settings/enabled')).then((a) => {
      if (!a.ok || a.body.enabled === shown.current) return;
      // Set elsewhere: this page's answer to its own last click no longer holds.
      if (shown.current !== null) setSaid('');
      setEnabled(a.body.enabled);
    });
  useEffect(() => void read(), []);
  // A state that says otherwise than the switch: control was set elsewhere, or the state was sent
  // just before this page's own PUT. The service's answer decides, so a late state does not undo
  // the click.
  useEffect(() => {
    if (typeof status.enabled === 'boolean' && shown.current !== null && status.enabled !== shown.current) void read();
  }, [status]);
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
