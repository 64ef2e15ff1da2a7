// A fermentation profile's card: start one from a template (steps of temperature, duration and
// ramp), see the step it is in and what comes next, pause/resume, skip a step, stop.
// Pause keeps the elapsed time in the block's meta (meta.pausedAt, seconds), so any browser resumes
// it; Pause and Stop leave the setpoint holding the profile's setting of the moment.
import { useState } from 'preact/hooks';
import { controller, serviceId, type Block } from './api';
import type { CardAnswer } from './CardFields';
import { unitLabel } from './blocks';
import { controllerClockKnown, controllerNow, useLive } from './live';
import { retyped } from './units';
import {
  inUnit,
  parseSteps,
  segmentsOf,
  settingAt,
  startSeconds,
  stepsToPoints,
  stepText,
  TEMPLATES,
  whereIsIt,
  type StepText,
} from './profile-steps';

const patch = (b: Block, data: Record<string, unknown>, meta?: Record<string, unknown>) =>
  controller<Block>('blocks/patch', {
    id: b.id,
    type: b.type,
    serviceId: serviceId(),
    data,
    ...(meta ? { meta } : {}),
  });
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function StartForm({ block, answer, unit }: { block: Block; answer: CardAnswer; unit: string }) {
  const [name, setName] = useState('Ale');
  // Text as typed (a comma as the decimal point too), read when the profile starts.
  const template = (n: string): StepText[] =>
    TEMPLATES[n]!.map((s) => stepText({ ...s, temperature: inUnit(s.temperature, unit) }));
  // The steps as edited, in the unit they were written in (converted when the user's unit
  // changes meanwhile); null while they are the template's, which is written in the unit of now.
  const [typed, setTyped] = useState<{ unit: string; steps: StepText[] } | null>(null);
  const steps = !typed
    ? template(name)
    : typed.unit === unit
      ? typed.steps
      : typed.steps.map((s) => ({ ...s, temperature: retyped(s.temperature, typed.unit, unit) }));
  // Another template replaces the steps a refusal was about.
  const pick = (n: string) => {
    setName(n);
    setTyped(null);
    answer.edited();
    answer.withdraw('profile');
  };
  const edit = (i: number, key: keyof StepText, v: string) => {
    setTyped({ unit, steps: steps.map((s, j) => (j === i ? { ...s, [key]: v } : s)) });
    answer.edited();
  };
  const start = (e: Event) => {
    e.preventDefault();
    const parsed = parseSteps(steps, unit);
    if ('error' in parsed) return answer.refuse(`not started: ${parsed.error}`, 'profile');
    void answer.run(
      patch(
        block,
        { points: stepsToPoints(parsed.steps), start: new Date(controllerNow()).toISOString(), enabled: true },
        { pausedAt: null, template: name },
      ),
      `${name} profile started`,
    );
  };
  const u = unitLabel(unit);
  return (
    <form class="profile-form" onSubmit={start} data-testid="profile-form">
      <label>
        Template{' '}
        <select value={name} onChange={(e) => pick((e.target as HTMLSelectElement).value)}>
          {Object.keys(TEMPLATES).map((n) => (
            <option value={n}>{n}</option>
          ))}
        </select>
      </label>
      <table class="steps">
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Temperature ({u})</th>
            <th scope="col">Days</th>
            <th scope="col">Ramp days</th>
          </tr>
        </thead>
        <tbody>
          {steps.map((s, i) => (
            <tr>
              <th scope="row">{i + 1}</th>
              <td>
                <input
                  aria-label={`step ${i + 1} temperature`}
                  inputMode="decimal"
                  value={s.temperature}
                  onInput={(e) => edit(i, 'temperature', (e.target as HTMLInputElement).value)}
                />
              </td>
              <td>
                <input
                  aria-label={`step ${i + 1} days`}
                  inputMode="decimal"
                  value={s.days}
                  onInput={(e) => edit(i, 'days', (e.target as HTMLInputElement).value)}
                />
              </td>
              <td>
                <input
                  aria-label={`step ${i + 1} ramp days`}
                  inputMode="decimal"
                  value={s.rampDays}
                  disabled={i === 0}
                  onInput={(e) => edit(i, 'rampDays', (e.target as HTMLInputElement).value)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="submit">Start {name} profile</button>
    </form>
  );
}

export function ProfileCard({ block, answer }: { block: Block; answer: CardAnswer }) {
  const { run } = answer;
  const live = useLive();
  const unit = ((live.status.units as { temperature?: string } | undefined)?.temperature ?? 'degC') as string;
  const d = block.data;
  const pausedAt = typeof block.meta?.pausedAt === 'number' ? block.meta.pausedAt : null;
  const start = startSeconds(d.start);
  const segments = segmentsOf(d.points, unit);
  if (d.enabled !== true && pausedAt === null) {
    if (!segments.length) return <StartForm block={block} answer={answer} unit={unit} />;
    return (
      <div class="profile">
        <ol class="muted" data-testid="profile-steps">
          {segments.map((s) => (
            <li>{s.text}</li>
          ))}
        </ol>
        <button
          type="button"
          onClick={() =>
            void run(
              patch(block, { enabled: true, start: new Date(controllerNow()).toISOString() }, { pausedAt: null }),
              'profile started',
            )
          }
        >
          Start profile now
        </button>
        <details>
          <summary>Or start from a template</summary>
          <StartForm block={block} answer={answer} unit={unit} />
        </details>
      </div>
    );
  }
  // The controller's clock, which `start` is on (the browser's may be hours off).
  const now = controllerNow() / 1000;
  const elapsed = pausedAt ?? (start === null ? 0 : now - start);
  const where = whereIsIt(segments, elapsed);
  // Resume and Skip of a running profile write a start; see controllerClockKnown.
  const clockKnown = controllerClockKnown();
  const skip = () => {
    const next = segments[where.index]?.end;
    if (next === undefined) return;
    if (pausedAt !== null) void run(patch(block, {}, { pausedAt: next }), 'skipped to the next step');
    else void run(patch(block, { start: iso(now - next) }), 'skipped to the next step');
  };
  // Paused or stopped, the profile drives its setpoint no more, and a setpoint it claimed has no
  // setting of its own: the beer would go uncontrolled. In one batch, the profile is turned off and
  // the setpoint written the profile's setting of now (STORED), so it holds, as a thermostat
  // would. A batch is one change: no block runs between its items, so no profile claims the
  // setpoint back between them. Just started, the card may not have the controller's setting
  // yet (it comes with the profile's first update): it is then worked out from the points.
  const letGo = (meta: Record<string, unknown>, done: string) => {
    const off = { id: block.id, type: block.type, serviceId: serviceId(), data: { enabled: false }, meta };
    const target = (d.targetId as { id?: unknown } | null)?.id;
    const known = d.setting as { value?: unknown } | null;
    const setting = typeof known?.value === 'number' ? known : settingAt(d.points, elapsed);
    if (typeof target !== 'string' || setting === null) return run(controller<Block>('blocks/patch', off), done);
    const hold = { id: target, type: 'SetpointSensorPair', serviceId: serviceId(), data: { storedSetting: setting } };
    const both = controller<Block[]>('blocks/batch/patch', [off, hold]).then((a) => ({
      ...a,
      body: a.ok ? a.body[0]! : (a.body as unknown as Block),
    }));
    return run(both, `${done}: ${target} holds its setting`);
  };
  const pause = () => letGo({ pausedAt: Math.max(0, elapsed) }, 'paused');
  // Paused, the setpoint already holds what Pause left it: Stop only forgets the place.
  const stop = () =>
    pausedAt !== null
      ? run(patch(block, { enabled: false }, { pausedAt: null }), 'profile stopped')
      : letGo({ pausedAt: null }, 'profile stopped');
  return (
    <div class="profile" data-testid="profile-now">
      <p>
        <strong>{pausedAt !== null ? 'Paused at ' : 'Now: '}</strong>
        {where.now}
      </p>
      {where.next && <p class="muted">Next: {where.next}</p>}
      {!clockKnown && (
        <p class="muted" data-testid="profile-clock-unset">
          The controller's clock is not set yet (no network time since it started): Resume and Skip wait for it, so the
          profile keeps its place. Pause and Stop work; the setpoint holds its setting.
        </p>
      )}
      <div class="buttons">
        {pausedAt === null ? (
          <button type="button" onClick={() => void pause()}>
            Pause
          </button>
        ) : (
          <button
            type="button"
            disabled={!clockKnown}
            onClick={() =>
              void run(patch(block, { enabled: true, start: iso(now - pausedAt) }, { pausedAt: null }), 'resumed')
            }
          >
            Resume
          </button>
        )}
        <button
          type="button"
          disabled={where.index < 0 || where.index >= segments.length || (!clockKnown && pausedAt === null)}
          onClick={skip}
        >
          Skip step
        </button>
        <button type="button" onClick={() => void stop()}>
          Stop
        </button>
      </div>
    </div>
  );
}
