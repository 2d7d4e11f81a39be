// The refusals a transaction's operations throw when what the caller names is missing, taken, or wrong.
import { StrataError } from '../errors.js';

export const notFound = (message: string) => new StrataError('NOT_FOUND', message);
export const alreadyExists = (message: string) => new StrataError('ALREADY_EXISTS', message);
export const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);
