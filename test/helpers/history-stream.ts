// The history websocket (/history/timeseries/stream) as a test uses it: opened on the service at
// `root` (the origin, no service path), every frame it receives kept parsed, closed at teardown.
import type { Test } from 'tap';
import WebSocket from 'ws';

export async function openHistoryStream(t: Test, root: string): Promise<{ ws: WebSocket; frames: any[] }> {
  const ws = new WebSocket(`${root.replace(/^http/, 'ws')}/history/timeseries/stream`);
  t.teardown(() => ws.terminate());
  const frames: any[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, frames };
}
