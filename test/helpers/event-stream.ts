// The dashboard's live feed (GET /{service_id}/events, server-sent events) read over a real socket.
export type StreamEvent = { event: string; data: any };

/**
 * Reads the stream at `url` until `until` says stop (or it ends); `onOpen` runs once the first
 * event came. Returns the response (its headers) and the events, parsed.
 */
export async function readEvents(
  url: string,
  until: (events: StreamEvent[]) => boolean,
  onOpen?: () => Promise<void>,
): Promise<{ res: Response; events: StreamEvent[] }> {
  const ac = new AbortController();
  const res = await fetch(url, { signal: ac.signal });
  const events: StreamEvent[] = [];
  const reader = res.body!.getReader();
  let buf = '';
  let opened = false;
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += Buffer.from(value).toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const chunk = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const event = /^event: (.*)$/m.exec(chunk)?.[1];
        const data = /^data: (.*)$/m.exec(chunk)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
      if (!opened && events.length && onOpen) {
        opened = true;
        await onOpen();
      }
    }
  } finally {
    ac.abort();
  }
  return { res, events };
}
