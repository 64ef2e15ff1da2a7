// One JSON error envelope for every failure: {statusCode, error, message, validation?}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ValidationIssue } from '../codec/partial.js';
import { BlockError, type BlockErrorKind } from '../runtime/errors.js';
import { DatastoreFullError } from '../store/documents.js';
import { DISK_FULL_MESSAGE, isDiskFull, isWriteRefused, WRITE_REFUSED_MESSAGE } from '../store/storage-health.js';
import { errorBody, type ErrorBody } from './error-body.js';
import { quoteAsSent, sentNumbersOf } from '../shared/json.js';
import { quotedText } from '../../drivers/quoted-text.js';
import { WarningLimiter } from '../log/limit.js';
import { methodNotAllowed, unsupportedMediaType } from './http-hints.js';

export { errorBody, type ErrorBody } from './error-body.js';

const STATUS_OF: Record<BlockErrorKind, number> = {
  'bad-request': 400,
  'not-found': 404,
  conflict: 409,
  invalid: 422,
};

/** An error a route raises on purpose, with its status and (for 422) the offending fields. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly validation?: ValidationIssue[],
  ) {
    super(message);
  }
}

export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof BlockError)
    return errorBody(STATUS_OF[err.kind], err.message, err.kind === 'invalid' ? (err.validation ?? []) : undefined);
  if (err instanceof HttpError)
    return errorBody(err.statusCode, err.message, err.validation ?? (err.statusCode === 422 ? [] : undefined));
  if (isDiskFull(err)) return errorBody(507, DISK_FULL_MESSAGE);
  if (err instanceof DatastoreFullError) return errorBody(507, err.message);
  if (isWriteRefused(err)) return errorBody(503, WRITE_REFUSED_MESSAGE);
  const fe = err as FastifyError;
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500)
    return errorBody(fe.statusCode, fe.message);
  return errorBody(500, 'internal error; see the service log');
}

/**
 * A refusal quoting the numbers of the body that JSON.parse rounded (9007199254740993 is read as
 * 9007199254740992) as the user sent them, not as numbers they never wrote (server.ts parses
 * bodies with `sent`).
 */
function asSent(body: ErrorBody, req: FastifyRequest): ErrorBody {
  const sent = sentNumbersOf(req.body);
  if (!sent.length || !body.validation?.length) return body;
  const quoted = quoteAsSent(body.message, body.validation, sent);
  return { ...body, message: quoted.message, validation: quoted.issues };
}

/** Longest path a message quotes whole: a refusal can be for a path of any length. */
const PATH_LIMIT = 120;
const quotedPath = (url: string) => JSON.stringify(quotedText(url, PATH_LIMIT));

/**
 * The refusals fastify's router makes before any hook or error handler runs (a %-escape that is
 * not UTF-8, a path parameter over its length), in the same envelope as every other refusal.
 * Given to Fastify as `frameworkErrors` (server.ts).
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const path = quotedPath(req.raw.url ?? req.url);
  const [status, message] =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? [
          414,
          `a part of the path ${path} is longer than the router takes (${req.server.initialConfig.maxParamLength ?? 100} characters)`,
        ]
      : err.code === 'FST_ERR_BAD_URL'
        ? [400, `the path ${path} holds a %-escape that does not decode to UTF-8 text`]
        : [400, `the request could not be routed: ${err.message}`];
  void reply.code(status).send(errorBody(status, message));
}

export function installErrorHandling(app: FastifyInstance): void {
  // A request that fails is a bug, but one a client could repeat: one line a minute per route.
  const failures = new WarningLimiter(app.log, { level: 'error' });
  app.setErrorHandler((err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const body = unsupportedMediaType(err, req) ?? asSent(toErrorBody(err), req);
    // Failing storage (full, refusing writes) is logged once by StorageHealth, not once per refused request.
    if (body.statusCode >= 500 && body.statusCode !== 507 && !isWriteRefused(err))
      failures.warn(
        `${req.method} ${req.routeOptions.url ?? '(no route)'}`,
        { err, reqId: req.id, url: req.url },
        `request failed: ${req.method} ${req.url.split('?')[0]}`,
      );
    else req.log.debug({ status: body.statusCode, message: body.message }, 'request refused');
    void reply.status(body.statusCode).send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    const wrongMethod = methodNotAllowed(app, req);
    if (wrongMethod) return void reply.status(405).header('allow', wrongMethod.allow).send(wrongMethod.body);
    void reply
      .status(404)
      .send(errorBody(404, `no route ${req.method} ${quotedText(req.url.split('?')[0], PATH_LIMIT)}`));
  });
}
