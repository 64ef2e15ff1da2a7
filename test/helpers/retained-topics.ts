// What a broker holds retained: the (non-empty) topics a new subscriber reads, sorted. A marker
// published after the subscription arrives behind every retained copy, so the list is whole.
import type { IClientOptions } from 'mqtt';
import { Recorder } from '../mqtt/fixtures.js';

export async function retainedTopics(url: string, filters: string[], opts: IClientOptions = {}): Promise<string[]> {
  const r = await Recorder.connect(url, opts);
  try {
    await r.subscribe(...filters, 'edge-test/marker');
    await r.publish('edge-test/marker', 'x');
    await r.waitFor((m) => m.topic === 'edge-test/marker', 'the marker');
    return r.messages
      .filter((m) => m.retain && m.payload.length > 0)
      .map((m) => m.topic)
      .sort();
  } finally {
    await r.end();
  }
}
