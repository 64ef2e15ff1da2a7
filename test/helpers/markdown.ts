// The parts of the Markdown pages (README.md, docs/*.md) that tests check: shell blocks with the
// marker that says where they run, headings with GitHub's anchors, and links.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.js';

/** README.md and every page in docs/, as paths relative to the repository root. */
export function markdownPages(): string[] {
  return [
    'README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

export const readPage = (page: string) => readFileSync(path.join(ROOT, page), 'utf8');

export interface ShellBlock {
  page: string;
  line: number;
  /** `demo`, `dev` or `elsewhere`, from `<!-- run: ... -->` on the line before the fence; null without one. */
  run: string | null;
  code: string;
}

/** The ```sh / ```bash / ```shell blocks of a page, with their run markers. */
export function shellBlocks(page: string, text = readPage(page)): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\w*)/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
    if (/^(sh|bash|shell|console)$/.test(fence[2]!)) {
      const marker = /^\s*<!--\s*run:\s*([\w-]+)\s*-->\s*$/.exec(lines[i - 1] ?? '');
      blocks.push({ page, line: i + 1, run: marker ? marker[1]! : null, code: lines.slice(i + 1, end).join('\n') });
    }
    i = end;
  }
  return blocks;
}

/** The page's text outside fenced code blocks. */
export function prose(text: string): string {
  return text.replace(/^\s*```[\s\S]*?^\s*```\s*$/gm, '');
}

/** GitHub's anchor for a heading's text (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*_~]/g, (c) => (c === '_' ? '_' : '')); // emphasis and code marks (underscores stay)
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' slugs, numbered from -1 on repeats as GitHub does. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The links of a page's prose (inline code and code blocks left out): `[text](target)`. */
export function links(text: string): Array<{ target: string; text: string }> {
  const body = prose(text).replace(/`[^`\n]*`/g, '');
  return [...body.matchAll(/!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({
    text: m[1]!,
    target: m[2]!,
  }));
}
