// A location as the URI an engine reads it by. A directory store's locations are absolute paths; an S3 store's
// are already URIs. Node's pathToFileURL costs microseconds a call, and a manifest names every file of a
// table, so a path whose every segment is plain (letters, digits, `-`, `_`, `.` past the first character:
// nothing Node would escape or resolve away) is prefixed as it is; any other goes through Node.
import { pathToFileURL } from 'node:url';

const PLAIN_PATH = /^(?:\/[\w-][\w.-]*)+$/;

export function fileUri(location: string): string {
  if (!location.startsWith('/')) return location;
  return PLAIN_PATH.test(location) ? `file://${location}` : pathToFileURL(location).href;
}
