// A provider base URL given by the user (a request's x-gateway-custom-host, a virtual key's customHost).
import { invalidRequest } from './errors.js';

/** An absolute http(s) URL without a trailing slash; anything else would make an unroutable upstream call. `field` names it in the error. */
export function parseCustomHost(raw: string, field: string): string {
  // A key's host is a form field people type: its error says what to type, in the field's own words.
  const label = field === 'customHost' ? 'Custom host' : `'${field}'`;
  const example = 'a URL like http://127.0.0.1:1234/v1';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidRequest(`${label} must be ${example} (got '${raw}')`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidRequest(`${label} must be ${example}: it starts with http:// or https:// (got '${raw}')`, field);
  }
  return url.toString().replace(/\/+$/, '');
}
