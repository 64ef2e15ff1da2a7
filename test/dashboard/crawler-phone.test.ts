// No tap breaks the page at phone width (issue 47.1): the crawler of crawler.test.ts (the demo,
// every page and the editor of one block of each type, every control used; crawl-demo.ts) at
// 390 px, as a phone (touch, mobile viewport). Any uncaught page error, console error or HTTP 5xx
// fails the test, named with the page and the control that caused it. Needs `npm run build` and
// `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { crawlDemo } from './crawl-demo.js';

crawlDemo(t, 390, 'phone');
