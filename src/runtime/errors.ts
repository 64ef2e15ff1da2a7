import type { ValidationIssue } from '../codec/partial.js';

export type BlockErrorKind = 'bad-request' | 'not-found' | 'conflict' | 'invalid';

/** A refused block operation. The API maps the kind to a status code (400/404/409/422). */
export class BlockError extends Error {
  constructor(
    readonly kind: BlockErrorKind,
    message: string,
    readonly validation?: ValidationIssue[],
  ) {
    super(message);
    this.name = 'BlockError';
  }
}

export const invalid = (message: string, validation?: ValidationIssue[]) =>
  new BlockError('invalid', message, validation);
export const notFound = (message: string) => new BlockError('not-found', message);
export const conflict = (message: string) => new BlockError('conflict', message);
