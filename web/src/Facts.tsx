import type { ComponentChildren } from 'preact';

/** Label and value pairs as a definition list (a card's or an editor's facts). */
export function Facts({ rows }: { rows: ReadonlyArray<readonly [string, ComponentChildren]> }) {
  return (
    <dl>
      {rows.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </>
      ))}
    </dl>
  );
}
