// What index.html's first script asked for while the code loaded (window.__early): each is
// taken once; later asks (a login, a reload of the API document) go to the network again.
declare global {
  interface Window {
    __early?: {
      info?: Promise<unknown>;
      session?: Promise<Response>;
      /** The API document, parsed (a 401 without a session: asked again after the login). */
      doc?: Promise<{ status: number; body?: unknown } | null>;
      events?: Promise<EarlyStream | null>;
    };
  }
}

/** The event stream index.html opened, with the messages (parsed) it received before live.ts took it. */
export type EarlyStream = EventSource & { early?: Array<{ type: string; json: unknown }> };

type Early = NonNullable<Window['__early']>;

/** The early promise `key`, once; undefined when the first script did not run or it was taken. */
export function takeEarly<K extends keyof Early>(key: K): Early[K] | undefined {
  const e = window.__early;
  const p = e?.[key];
  if (e) delete e[key];
  return p;
}

/** The state message the service put into index.html with its prepaint (web/src/prepaint.ts); none with auth on before a login. */
const prepaintState = document.getElementById('prepaint-state');
/** Whether the page opened with the prepaint: the overview shows all its groups at once, over it. */
export const prepainted = prepaintState !== null;

/** The prepaint's state message, once. */
export function takePrepaint(): unknown {
  const text = prepaintState?.textContent;
  prepaintState?.remove();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
