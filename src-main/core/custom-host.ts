// A provider base URL given by the user (a request's x-gateway-custom-host, a virtual key's customHost).
import { invalidRequest } from './errors.js';

/** An absolute http(s) URL without a trailing slash; anything else would make an unroutable upstream call. `field` names it in the error. */
export function parseCustomHost(raw: string, field: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidRequest(`'${field}' is not a valid URL: ${raw}`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidRequest(`'${field}' must be an http or https URL`, field);
  }
  return url.toString().replace(/\/+$/, '');
}
