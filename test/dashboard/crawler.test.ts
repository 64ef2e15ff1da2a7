// No click breaks the page (issue 47.1): on the demo (the built CLI, --hardware sim, the demo
// blocks, everything discovery finds and a fermentation profile), every page at desktop width, and
// the editor of one block of each type, is walked by a crawler that uses every control it finds
// (test/dashboard/crawl.ts, the walk in crawl-demo.ts). Any uncaught page error, console error or
// HTTP 5xx fails the test, named with the page and the control that caused it. The phone width
// (390 px) is crawler-phone.test.ts. Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { crawlDemo } from './crawl-demo.js';

crawlDemo(t, 1200, 'desktop');
