// What index.html's first script asked for while the code loaded (window.__early): each is
// taken once; later asks (a login, a reload of the API document) go to the network again.
declare global {
  interface Window {
    __early?: {
      info?: Promise<unknown>;
      session?: Promise<Response>;
      doc?: Promise<Response | null>;
      events?: Promise<(EventSource & { early?: MessageEvent[] }) | null>;
    };
  }
}

type Early = NonNullable<Window['__early']>;

/** The early promise `key`, once; undefined when the first script did not run or it was taken. */
export function takeEarly<K extends keyof Early>(key: K): Early[K] | undefined {
  const e = window.__early;
  const p = e?.[key];
  if (e) delete e[key];
  return p;
}
