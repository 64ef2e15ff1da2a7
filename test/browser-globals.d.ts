// The browser globals that code run inside the page (playwright's evaluate callbacks) and the
// dashboard modules imported by unit tests name. The type check of test/ runs without the DOM
// library (it would clash with Node's types); the web's own check (web/tsconfig.json) has it.
declare const document: any;
declare const location: any;
declare const localStorage: any;
declare const window: any;
declare function getComputedStyle(element: any): any;
type HTMLElement = any;
type HTMLInputElement = any;
type HTMLOptionElement = any;
type HTMLSelectElement = any;
