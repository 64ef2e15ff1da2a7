// An in-process app with the datastore API, and a recorder of the change events it publishes.
import { startApp } from '../helpers/app.js';
import type { DocChange } from '../../src/store/datastore-events.js';

export interface Published {
  topic: string;
  payload: DocChange;
  retain: boolean;
}

export async function datastoreApp(overrides: Parameters<typeof startApp>[0] = {}) {
  const h = await startApp(overrides, { listen: false });
  const published: Published[] = [];
  h.app.attachDatastoreBus({
    publish: (topic, payload, opts) => published.push({ topic, payload, retain: opts.retain }),
  });
  /** POST /history/datastore/<op>; a string body is sent as it is. */
  const ds = (op: string, body?: unknown) =>
    typeof body === 'string'
      ? h.post(`/history/datastore/${op}`, undefined, body)
      : h.post(`/history/datastore/${op}`, body);
  /** The events published since the last call. */
  const events = () => published.splice(0);
  return { ...h, ds, events, published };
}

/** Sort documents by namespace and id, for order-free comparison. */
export const sortDocs = <T extends { namespace: string; id: string }>(docs: T[]) =>
  [...docs].sort((a, b) => (a.namespace + '\u0000' + a.id < b.namespace + '\u0000' + b.id ? -1 : 1));

export const ids = (docs: { namespace: string; id: string }[]) =>
  docs.map((d) => (d.namespace ? `${d.namespace}:${d.id}` : d.id)).sort();
