// The bytes a browser loads before the dashboard's overview shows: index.html, its entry script
// and CSS, and their static imports (import() chunks load later), gzipped as the service sends
// them. The web bench reports it; test/dashboard/size-budget.test.ts holds it to its budget.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** The first view's budget, gzipped (issue 27, 47.8). */
export const FIRST_VIEW_BUDGET_KB = 60;

/** The files a browser loads before the overview shows: index.html, its entry script and CSS, and their static imports. */
export function firstViewBytes(web: string): { files: string[]; gzip: number } {
  const html = readFileSync(path.join(web, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  const visit = (ref: string) => {
    if (seen.has(ref)) return;
    seen.add(ref);
    if (!ref.endsWith('.js')) return;
    const code = readFileSync(path.join(web, ref), 'utf8');
    // Static imports only (`import ... from "./x.js"` / `import "./x.js"`); import() chunks load later.
    for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[^'"();]*?from\s*)?["'](\.\/[^"']+)["']/g))
      visit(`/assets/${m[1]!.slice(2)}`);
  };
  refs.forEach(visit);
  const files = [...seen];
  return {
    files,
    gzip: files.reduce((n, f) => n + gzipSync(readFileSync(path.join(web, f))).length, 0) + gzipSync(html).length,
  };
}
