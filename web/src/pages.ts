// The dashboard's pages, in the order of the header's links (main.tsx, and the prepaint's header).
export const PAGES = [
  ['overview', 'Overview'],
  ['graphs', 'Graphs'],
  ['setup', 'Setup'],
  ['hardware', 'Hardware'],
  ['alerts', 'Alerts'],
  ['block', 'Blocks'],
] as const;
