// The JSON error envelope every failure answers with: {statusCode, error, message, validation?}.
import { STATUS_CODES } from 'node:http';
import type { ValidationIssue } from '../codec/partial.js';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  validation?: ValidationIssue[];
}

export function errorBody(statusCode: number, message: string, validation?: ValidationIssue[]): ErrorBody {
  const body: ErrorBody = { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
  if (validation) body.validation = validation;
  return body;
}
