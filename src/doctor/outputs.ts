// The outputs section: every configured GPIO output listed with the sysfs number its line gets,
// and, only when asked (--toggle NAME), one of them switched away from its safe state for a few
// seconds after a confirmation, then back, with the level read back each time.
import { createInterface } from 'node:readline/promises';
import type { GpioBackend, GpioLineConfig } from '../../drivers/gpio/types.js';
import { section, type Section } from './report.js';

export interface ToggleRequest {
  name: string;
  seconds: number;
  /** --yes: no question asked. */
  confirmed: boolean;
}

const onOff = (v: boolean | null) => (v === null ? 'unreadable' : v ? 'on' : 'off');

export function outputsSection(lines: GpioLineConfig[], base: number | null): Section {
  const s = section('Outputs');
  const outputs = lines.filter((l) => l.direction === 'out');
  for (const l of outputs)
    s.facts.push([
      l.name,
      `GPIO${l.line}${base !== null ? ` (sysfs ${base + l.line})` : ''}, ${l.activeLow ? 'active low' : 'active high'}, safe state ${l.safeState ? 'on' : 'off'}`,
    ]);
  if (outputs.length === 0) s.facts.push(['gpio', 'no GPIO outputs in the config']);
  s.findings.push({
    verdict: 'info',
    text: 'outputs are listed, not switched; `edgeblocks doctor --toggle NAME` switches one for a few seconds',
  });
  return s;
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** Switches `line` out of its safe state for `seconds`, then back; every step read back. */
export async function toggleOutput(
  s: Section,
  backend: GpioBackend,
  config: GpioLineConfig,
  request: ToggleRequest,
): Promise<void> {
  const safe = config.safeState === true;
  const question = `Switch ${config.name} (GPIO${config.line}) ${onOff(!safe)} for ${request.seconds} s, then back to ${onOff(safe)}? [y/N] `;
  if (!request.confirmed && !(await confirm(question))) {
    s.findings.push({
      verdict: 'info',
      text: `${config.name} was not switched: ${process.stdin.isTTY ? 'not confirmed' : 'no terminal to confirm on (add --yes to switch without asking)'}`,
    });
    return;
  }
  const line = await backend.open({ ...config });
  let restored = false;
  const restore = async () => {
    if (restored) return;
    restored = true;
    await line.write(safe);
  };
  // Ctrl-C during the toggle still ends at the safe state.
  const onSignal = () => void restore().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const before = await line.read();
    await line.write(!safe);
    const during = await line.read();
    await new Promise((r) => setTimeout(r, request.seconds * 1000));
    await restore();
    const after = await line.read();
    const ok = during === !safe && after === safe;
    s.findings.push({
      verdict: ok ? 'ok' : 'fail',
      text: `${config.name}: ${onOff(before)} -> ${onOff(!safe)} for ${request.seconds} s (read back ${onOff(during)}) -> ${onOff(safe)} (read back ${onOff(after)})`,
      ...(ok ? {} : { advice: 'check the wiring of the line and the activeLow setting of this output' }),
    });
  } finally {
    await restore().catch(() => undefined);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await line.close().catch(() => undefined);
  }
}
