// What the Iceberg REST catalog's clients read when a request fails: the spec's IcebergErrorResponse,
// `{ "error": { "message", "type", "code" } }`, with the HTTP status in `code` and an exception name in `type`
// that Java's and Python's clients turn into their own exceptions. Never a stack trace: the message is all a
// client is told, and it says what was asked, what exists and what to do.
import { StrataError } from '../errors.js';

export interface ErrorModel {
  error: { message: string; type: string; code: number };
}

/** A request the server answers with an error: the status, the spec's exception name and the message. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }

  body(): ErrorModel {
    return { error: { message: this.message, type: this.type, code: this.status } };
  }
}

export const badRequest = (message: string) => new RestError(400, 'BadRequestException', message);
export const noSuchNamespace = (message: string) => new RestError(404, 'NoSuchNamespaceException', message);
export const noSuchTable = (message: string) => new RestError(404, 'NoSuchTableException', message);

/**
 * What a catalog error means to a REST client. A table Iceberg v2 cannot represent (a column of a type with no
 * Iceberg type) is 501, which clients read as an unsupported operation: the request was fine, this server
 * cannot serve it. A damaged object is a server failure naming the object; a store out of reach is 503, which
 * clients retry.
 */
export function restErrorOf(e: unknown): RestError | undefined {
  if (e instanceof RestError) return e;
  if (!(e instanceof StrataError)) return undefined;
  switch (e.code) {
    case 'NOT_FOUND':
      return noSuchTable(e.message);
    case 'INVALID_ARGUMENT':
      return new RestError(501, 'UnsupportedOperationException', e.message);
    case 'STORE_UNAVAILABLE':
      return new RestError(503, 'ServiceUnavailableException', e.message);
    case 'CORRUPT':
      return new RestError(500, 'ServiceFailureException', e.message);
    default:
      return new RestError(500, 'ServiceFailureException', `${e.code}: ${e.message}`);
  }
}
