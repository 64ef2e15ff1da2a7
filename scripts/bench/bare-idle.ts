// The reference of the idle bench: a bare fastify 5 server with one route and a 10 Hz timer that
// does nothing, the least a controller with a 100 ms tick can cost. Usage: bare-idle.js PORT
import Fastify from 'fastify';

const app = Fastify();
app.post('/ping', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2]) });
let ticks = 0;
setInterval(() => void ticks++, 100);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
