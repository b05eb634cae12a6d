// The dialect half of each codec, found through the front doors that use it (the ingress registry is the
// one list of dialects), so the suites run every dialect the gateway serves.
import type { Dialect, DialectCodec } from '../../../src-main/codecs/canonical.js';
import { GENERATION_ROUTES, PATH_MODEL_DIALECTS } from '../../../src-main/gateway/ingress/registry.js';

const byDialect = new Map<Dialect, DialectCodec>([...GENERATION_ROUTES.values(), ...PATH_MODEL_DIALECTS].map(({ ingress }) => [ingress.dialect, ingress.codec]));

export function dialectCodec(dialect: Dialect): DialectCodec {
  const codec = byDialect.get(dialect);
  if (!codec) throw new Error(`No front door serves the '${dialect}' dialect`);
  return codec;
}

export function maybeDialectCodec(dialect: string): DialectCodec | undefined {
  return byDialect.get(dialect as Dialect);
}
