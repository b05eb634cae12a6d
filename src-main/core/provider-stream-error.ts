// An error a provider reported inside a stream that had already started. Thrown by the codecs' stream
// decoders and by providers' answer quirks, read by the relay; it lives in core so that neither of the
// first two imports the other for it.

/** An error the provider reported inside a stream that had already started. */
export class ProviderStreamError extends Error {
  constructor(message: string, readonly type = 'api_error', readonly code: string | null = null) {
    super(message);
  }
}
