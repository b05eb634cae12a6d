// A model name that goes into a provider's URL path (Gemini, Vertex, Bedrock; Azure's deployment) must
// stay one name: a `.` or `..` segment would be resolved by the URL parser, and `models/../../x` would
// reach another path of the host the key is bound to.
import { invalidRequest } from '../core/errors.js';

/** A `.` or `..` segment, split on `/` or `\` (WHATWG URLs take both), `%2e` counted as a dot. */
const DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){1,2}(?=$|[/\\])/i;

/** The name, unchanged; a 400 naming `param` when it holds a dot segment. */
export function refuseDotSegments(name: string, param = 'model'): string {
  if (DOT_SEGMENT.test(name)) {
    throw invalidRequest(`The ${param} '${name}' has a '.' or '..' path segment; a name that goes into the provider's URL cannot hold one`, param);
  }
  return name;
}
