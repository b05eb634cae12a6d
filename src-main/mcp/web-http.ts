// The v2 SDK serves MCP over web-standard Request and Response; Gatehouse's gateway is Node's http. These
// two functions are the only crossing: the request the endpoint already authorized and read (its body
// bytes, never read twice) becomes a Request, and the SDK's Response is written out as it streams, its
// stream cancelled when the client hangs up (the transport then forgets that stream).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The client's request as a web Request: its method, headers and the body already read; aborted when the client goes. */
export function toWebRequest(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  return new Request(url.href, { method: req.method, headers, body: body && body.length ? new Uint8Array(body) : undefined, signal: gone.signal });
}

/** Writes a web Response to the client, chunk by chunk as it comes (an SSE stream flushes each event). */
export async function sendWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const hangUp = () => void reader.cancel().catch(() => undefined);
  res.once('close', hangUp);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The stream was cancelled (the client went) or failed: nothing more can be sent.
  } finally {
    res.off('close', hangUp);
    res.end();
  }
}
