// fastify gives every request a child logger bound to its request id. With pino's redaction on,
// making one costs more than answering a block read, and most requests never log. The child is
// made on the first log line at an enabled level (or any other use), so a quiet request pays
// nothing; what a request logs is unchanged.
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);

/** A `childLoggerFactory` for fastify: the child is made when it is first needed. */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, opts: ChildOptions): FastifyBaseLogger {
  // A route with its own log level: the child's level differs from the parent's, so make it now.
  if (opts.level !== undefined) return parent.child(bindings, opts);
  let child: FastifyBaseLogger | null = null;
  const real = () => (child ??= parent.child(bindings, opts));
  const enabled = (level: string) =>
    (parent as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled?.(level) ?? true;
  const quiet = new Map<string, (...args: unknown[]) => void>();
  // fastify checks that `child` is a function when it takes the logger: answer without making one.
  const grandchild: FastifyBaseLogger['child'] = (b, o) => real().child(b, o);
  return new Proxy({} as FastifyBaseLogger, {
    get(_target, prop) {
      if (prop === 'child') return grandchild;
      if (child === null && typeof prop === 'string' && LEVELS.has(prop)) {
        let method = quiet.get(prop);
        if (!method) {
          method = (...args: unknown[]) => {
            if (child === null && !enabled(prop)) return;
            (real() as unknown as Record<string, (...a: unknown[]) => void>)[prop]!(...args);
          };
          quiet.set(prop, method);
        }
        return method;
      }
      const target = real() as unknown as Record<PropertyKey, unknown>;
      const value = target[prop];
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    set(_target, prop, value) {
      (real() as unknown as Record<PropertyKey, unknown>)[prop] = value;
      return true;
    },
    has(_target, prop) {
      return prop in real();
    },
  });
}
