// The doctor's report: sections of facts and findings, each finding with a verdict and, where
// something needs doing, what to do (in the words of docs/troubleshooting.md, see advice.ts).
// Rendered as text a brewer can read and paste into an issue, or as JSON for tools.

export type Verdict = 'ok' | 'info' | 'warn' | 'fail';

export interface Finding {
  verdict: Verdict;
  /** One line: what was checked and what was found. */
  text: string;
  /** What to do, when the verdict is warn or fail. */
  advice?: string;
  /** Where the advice comes from, e.g. docs/troubleshooting.md#hardware. */
  see?: string;
}

export interface Section {
  title: string;
  /** Name -> value lines shown first (the machine's facts). */
  facts: Array<[string, string]>;
  findings: Finding[];
  /** Nested sections: one per bus, per sensor. */
  parts?: Section[];
}

export interface Report {
  tool: string;
  version: string;
  time: string;
  sections: Section[];
  /** warn + fail findings: 0 means nothing needs doing. */
  problems: number;
}

export function section(title: string): Section {
  return { title, facts: [], findings: [] };
}

export function allFindings(s: Section): Finding[] {
  return [...s.findings, ...(s.parts ?? []).flatMap(allFindings)];
}

export function countProblems(sections: Section[]): number {
  return sections.flatMap(allFindings).filter((f) => f.verdict === 'warn' || f.verdict === 'fail').length;
}

const MARK: Record<Verdict, string> = { ok: 'ok  ', info: 'info', warn: 'WARN', fail: 'FAIL' };

/** Report lines are at most this wide (a terminal, an issue's code block). */
const WIDTH = 100;

/** `text` in lines of at most `width` columns (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

function renderSection(s: Section, depth: number, lines: string[]): void {
  const pad = '  '.repeat(depth);
  lines.push(`${pad}${s.title}`);
  const keyWidth = Math.max(0, ...s.facts.map(([k]) => k.length));
  for (const [k, v] of s.facts) lines.push(`${pad}  ${k.padEnd(keyWidth)}  ${v}`);
  const indent = `${pad}        `;
  const width = WIDTH - indent.length;
  const block = (text: string) => wrap(text, width).join(`\n${indent}`);
  for (const f of s.findings) {
    lines.push(`${pad}  ${MARK[f.verdict]}  ${block(f.text)}`);
    if (f.advice) lines.push(`${indent}${block(`what to do: ${f.advice}`)}`);
    if (f.see) lines.push(`${indent}(${f.see})`);
  }
  for (const part of s.parts ?? []) renderSection(part, depth + 1, lines);
}

export function renderText(report: Report): string {
  const lines = [`${report.tool} ${report.version}, ${report.time}`, ''];
  for (const s of report.sections) {
    renderSection(s, 0, lines);
    lines.push('');
  }
  lines.push(
    report.problems === 0
      ? 'Nothing needs doing.'
      : `${report.problems} finding${report.problems === 1 ? '' : 's'} need${report.problems === 1 ? 's' : ''} attention (WARN, FAIL above).`,
  );
  return `${lines.join('\n')}\n`;
}
