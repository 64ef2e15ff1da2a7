// The prepaint: the overview as static HTML, which the service puts into index.html so that a
// slow phone shows the cards with their numbers before the page's code has loaded (issue 47.8).
// Built for Node (vite build --ssr, into dist/web-prepaint/) and called by the service with the
// same state message the event stream sends and the block roles its API document declares: it
// knows only the public API, like the rest of the page. The markup is the overview's first render
// (header, groups, each card's name, type and headline), so when main.tsx renders over it nothing
// flashes; the cards then grow their details and controls. Every text is escaped: block names are
// user text.
import type { Block } from './block-types.js';
import { garbledDevices, groupByRole, problemsOf, ROLE_TITLES, type Role } from './blocks.js';
import { cardHeadline, fieldLabel } from './explain.js';
import { PAGES } from './pages.js';

export interface PrepaintInput {
  serviceId: string;
  /** The event stream's `state` message. */
  state: { status: Record<string, unknown>; blocks: Block[] };
  /** Block type -> role, as the API document's x-role says. */
  roles: Record<string, Role>;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text or an attribute value (always written in double quotes), as HTML. */
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

function card(b: Block, role: Role, blocks: Map<string, Block>, garbled: ReadonlySet<string>): string {
  // As Overview.tsx's card reads it, the garbled devices of the same status included.
  const problems = problemsOf(b, role, (id) => blocks.has(id), fieldLabel, garbled);
  const level = problems.some((p) => p.level === 'error')
    ? 'error'
    : problems.some((p) => p.level === 'warn')
      ? 'warn'
      : '';
  const id = esc(b.id);
  return (
    `<section class="card ${level}" data-block="${id}" aria-label="${id}"><div class="card-head">` +
    `<a class="name" href="#/block/${esc(encodeURIComponent(b.id))}" title="edit this block">${id}</a>` +
    `<span class="type">${esc(b.type)}</span></div>` +
    `<div class="big" data-testid="headline">${esc(cardHeadline(b, role, blocks))}</div></section>`
  );
}

/** The inside of `<div id="app">` as the overview first shows it. */
export function prepaintHtml({ serviceId, state, roles }: PrepaintInput): string {
  const blocks = new Map(state.blocks.map((b) => [b.id, b]));
  const groups = groupByRole(blocks.values(), new Map(Object.entries(roles)));
  const garbled = garbledDevices(state.status);
  // As main.tsx's header says it with this state (live.ts: online unless the status says not).
  const online = state.status.online !== false;
  const nav = PAGES.map(
    ([p, title]) => `<a href="#/${p}"${p === 'overview' ? ' class="active" aria-current="page"' : ''}>${title}</a>`,
  ).join('');
  return (
    `<header><strong class="brand">edgeblocks</strong><span class="service">${esc(serviceId)}</span>` +
    `<span class="dot ${online ? 'online' : 'offline'}" role="status">${online ? 'online' : 'offline'}</span><nav aria-label="pages">${nav}</nav></header>` +
    `<main><div class="${online ? '' : 'stale'}">` +
    groups
      .map(
        ([role, list]) =>
          `<section class="group" data-role="${role}"><h2>${ROLE_TITLES[role]}</h2><div class="cards">` +
          list.map((b) => card(b, role, blocks, garbled)).join('') +
          '</div></section>',
      )
      .join('') +
    '</div></main>'
  );
}
