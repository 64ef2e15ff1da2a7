import type { Server } from 'node:net';

/** Listen on `port` and `host`; rejects with the bind error (EADDRINUSE, EACCES, ...). */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
