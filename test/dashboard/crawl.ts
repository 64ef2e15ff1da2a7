// A crawler for the dashboard (issue 47.1): on one page of the app it finds every control (checkbox,
// radio, select, button, text field, folded section) and uses each one, a text field with an
// invalid and then a valid value; it records every uncaught page error, console error and HTTP
// 5xx on the way. Buttons that stop outputs, delete or log out are left alone, and so is the
// restore-from-file input. Pure playwright: no knowledge of the pages' code.
import type { Page } from 'playwright-core';

/** What a person must never meet while clicking around. */
export interface Trouble {
  where: string;
  what: string;
}

/** Never pressed: they stop outputs, delete, or end the session. */
const LEFT_ALONE = /stop all outputs|delete|log out/i;

/** Console errors that are the browser reporting a 4xx answer: invalid input refused by the service, shown on the page. */
const REFUSED = /Failed to load resource: the server responded with a status of 4\d\d/;

export class Watch {
  readonly troubles: Trouble[] = [];
  where = '';
  private inFlight = new Set<unknown>();

  constructor(readonly page: Page) {
    page.on('pageerror', (e) => this.troubles.push({ where: this.where, what: `uncaught: ${e.message}` }));
    page.on('console', (m) => {
      if (m.type() === 'error' && !REFUSED.test(m.text()))
        this.troubles.push({ where: this.where, what: `console error: ${m.text()}` });
    });
    page.on('response', (r) => {
      if (r.status() >= 500)
        this.troubles.push({ where: this.where, what: `HTTP ${r.status()} from ${r.request().method()} ${r.url()}` });
    });
    page.on('dialog', (d) => void d.dismiss());
    // The event stream stays open by design: it is not waited for.
    page.on('request', (r) => !r.url().endsWith('/events') && this.inFlight.add(r));
    page.on('requestfinished', (r) => this.inFlight.delete(r));
    page.on('requestfailed', (r) => this.inFlight.delete(r));
  }

  pending(): string[] {
    return [...this.inFlight].map((r) => (r as { url(): string }).url());
  }

  /** Until every request the page made has an answer (at most `ms`), then one frame for the render. */
  async settle(ms = 3000): Promise<void> {
    const deadline = Date.now() + ms;
    await this.page.waitForTimeout(50);
    while (this.inFlight.size && Date.now() < deadline) await this.page.waitForTimeout(25);
    await this.page.evaluate('new Promise((r) => requestAnimationFrame(() => r(undefined)))');
  }
}

interface Control {
  tag: string;
  type: string;
  text: string;
  value: string;
  name: string;
  inputMode: string;
  placeholder: string;
  disabled: boolean;
  inForm: boolean;
  options: string[];
}

const SAME_LIMIT = 12;

const CONTROLS = 'main input, main select, main textarea, main button, main summary, header summary, header button';

async function describe(page: Page, i: number): Promise<Control | null> {
  return page
    .locator(CONTROLS)
    .nth(i)
    .evaluate(
      (el: any) => {
        return {
          tag: el.tagName.toLowerCase(),
          type: (el.getAttribute('type') ?? '').toLowerCase(),
          text: (el.innerText ?? el.textContent ?? '').trim().slice(0, 60),
          value: el.value ?? '',
          name: el.getAttribute('name') ?? el.getAttribute('aria-label') ?? '',
          inputMode: el.getAttribute('inputmode') ?? '',
          placeholder: el.getAttribute('placeholder') ?? '',
          disabled: !!el.disabled,
          inForm: !!el.form,
          options: el.tagName === 'SELECT' ? Array.from(el.options, (o: any) => o.value) : [],
        };
      },
      undefined,
      { timeout: 2000 },
    )
    .catch(() => null);
}

/** An invalid and a valid value for a text field, judged from what it asks for. */
function valuesFor(c: Control): [invalid: string, valid: string] {
  const numeric = c.type === 'number' || c.inputMode === 'decimal' || c.inputMode === 'numeric';
  if (numeric) return ['twelve', /^-?\d+([.,]\d+)?$/.test(c.value.trim()) ? c.value : '1'];
  if (/min|duration|\bs\b/.test(c.placeholder)) return ['soon', c.value || '5 min'];
  if (c.type === 'search') return ['zzz-nothing-matches', ''];
  if (c.type === 'password') return ['', 'wrong-password'];
  if (c.tag === 'textarea') return ['{ not json', c.value];
  // Names and other text: far too long, then what was there (or a plain name).
  return ['x'.repeat(300), c.value || 'Crawled'];
}

/**
 * Uses every control on the page as it is now (the list is read again after each use, since
 * using a control may add others, such as a rename form). `back` returns to the page when a
 * control navigated away. Returns how many uses were made.
 */
export async function useEveryControl(watch: Watch, back: () => Promise<void>, limit = 400): Promise<number> {
  const page = watch.page;
  // On a phone a finger taps; on a desktop a mouse clicks.
  const touch = page.context().browser() !== null && (await page.evaluate('navigator.maxTouchPoints > 0'));
  const press = (l: ReturnType<Page['locator']>) => (touch ? l.tap({ timeout: 2000 }) : l.click({ timeout: 2000 }));
  const home = await page.evaluate('location.hash');
  let uses = 0;
  const done = new Set<string>();
  const alike = new Map<string, number>();
  for (let i = 0; i < (await page.locator(CONTROLS).count()) && uses < limit; i++) {
    const c = await describe(page, i);
    const el = page.locator(CONTROLS).nth(i);
    if (!c || c.disabled || !(await el.isVisible().catch(() => false))) continue;
    const label = `${c.tag}${c.type ? `[${c.type}]` : ''} ${c.name || c.text || c.placeholder}`.trim();
    if (done.has(`${i}:${label}`)) continue;
    done.add(`${i}:${label}`);
    // Controls that look the same (a graph's field checkboxes, each card's Rename) are used up to
    // SAME_LIMIT times per page: the rest would repeat the same code at the cost of minutes.
    const same = (alike.get(label) ?? 0) + 1;
    alike.set(label, same);
    if (same > SAME_LIMIT) continue;
    const where = watch.where;
    watch.where = `${where} → ${label}`;
    const t0 = Date.now();
    try {
      if (c.tag === 'summary') {
        // Folded sections are opened (a click on an open one would fold what is to be used next).
        if (await el.evaluate((s: any) => s.parentElement?.open === true)) continue;
        await press(el);
      } else if (c.tag === 'button') {
        if (LEFT_ALONE.test(c.text)) continue;
        await press(el);
      } else if (c.tag === 'select') {
        const next = c.options.find((o) => o !== c.value && o !== '') ?? c.options.find((o) => o !== c.value);
        if (next === undefined) continue;
        await el.selectOption(next, { timeout: 2000 });
      } else if (c.type === 'checkbox' || c.type === 'radio') {
        await press(el);
        // A checkbox goes back to how it was, so later pages meet the demo as it was set up.
        if (c.type === 'checkbox') {
          await watch.settle();
          await press(el).catch(() => undefined);
        }
      } else if (c.type === 'file' || c.type === 'hidden') {
        continue;
      } else {
        // The invalid value is submitted at once (Enter) and must be refused in words; the valid
        // one stays for the form's own button, used later like every other control.
        const [invalid, valid] = valuesFor(c);
        await el.fill(invalid, { timeout: 2000 });
        if (c.inForm && c.tag !== 'textarea') await el.press('Enter', { timeout: 2000 });
        await watch.settle();
        await el.fill(valid, { timeout: 2000 });
      }
      uses++;
      await watch.settle();
      const overflow = (await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number;
      if (overflow > 0)
        watch.troubles.push({ where: watch.where, what: `the page scrolls sideways by ${overflow} px` });
    } catch (e) {
      // The control went away under the click (a re-render, a closed form): not an error of the page.
      if (process.env.CRAWL_DEBUG)
        console.error(`skipped: ${(e as Error).message.split('\n').slice(0, 8).join(' | ')}`);
    } finally {
      if (process.env.CRAWL_DEBUG)
        console.error(`${Date.now() - t0} ms ${watch.where} [${[...watch.pending()].join(' ')}]`);
      watch.where = where;
    }
    if ((await page.evaluate('location.hash')) !== home) await back();
  }
  return uses;
}
