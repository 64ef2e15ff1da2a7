// A client of the CSV export that the tests can cut off: the request, not yet sent (end it with
// the body), whose errors after a destroy are expected.
import http from 'node:http';

export function csvRequest(base: string): http.ClientRequest {
  const { port } = new URL(base);
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/history/timeseries/csv',
    headers: { 'content-type': 'application/json' },
  });
  req.on('error', () => undefined);
  return req;
}
