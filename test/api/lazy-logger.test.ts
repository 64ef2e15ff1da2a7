// Request loggers are made lazily: a request that logs nothing makes none, and one that logs
// (a 500, a refused request at debug level) writes the same line as an eager child would, with
// its request id.
import t from 'tap';
import Fastify, { LogController } from 'fastify';
import { Writable } from 'node:stream';
import { lazyChildLogger } from '../../src/api/lazy-logger.js';
import { createLogger } from '../../src/log.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const out = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      cb();
    },
  });
  return { lines, log: createLogger(level, {}, out as unknown as NodeJS.WritableStream, 'json') };
}

t.test('a quiet request makes no child; a logging one logs with its request id', async (t) => {
  const { lines, log } = capture('info');
  let children = 0;
  const app = Fastify({
    loggerInstance: log,
    childLoggerFactory: (parent, bindings, opts) =>
      lazyChildLogger(
        {
          ...parent,
          child: (b: never, o: never) => (children++, parent.child(b, o)),
          isLevelEnabled: (l: string) => log.isLevelEnabled(l),
        } as never,
        bindings,
        opts,
      ),
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.get('/quiet', async (req) => {
    req.log.debug('not at info level');
    return 'ok';
  });
  app.get('/loud', async (req) => {
    req.log.warn({ detail: 1 }, 'something to say');
    req.log.info('and more');
    return 'ok';
  });
  app.get('/child', async (req) => {
    req.log.child({ step: 'x' }).info('from a grandchild');
    return 'ok';
  });
  t.equal((await app.inject('/quiet')).statusCode, 200);
  t.equal(children, 0, 'no child logger for a request that logged nothing');
  t.equal(lines.length, 0);
  await app.inject({ url: '/loud', headers: { 'request-id': 'x' } });
  t.equal(children, 1, 'one child, made on the first line');
  t.equal(lines.length, 2);
  t.match(lines[0], { level: 40, msg: 'something to say', detail: 1, reqId: /^req-/ });
  t.equal(lines[1]!.reqId, lines[0]!.reqId, 'both lines carry the request id');
  await app.inject('/child');
  t.match(lines[2], { msg: 'from a grandchild', step: 'x', reqId: /^req-/ });
  t.not(lines[2]!.reqId, lines[0]!.reqId, 'each request has its own id');
  await app.close();
});

t.test('debug lines appear when the level allows them', async (t) => {
  const { lines, log } = capture('debug');
  const app = Fastify({
    loggerInstance: log,
    childLoggerFactory: lazyChildLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.get('/', async (req) => {
    req.log.debug('visible');
    t.equal(req.log.level, 'debug', 'level reads through');
    return 'ok';
  });
  await app.inject('/');
  t.match(lines, [{ level: 20, msg: 'visible', reqId: /^req-/ }]);
  await app.close();
});
