// What a 404 from an OpenAI-compatible server means: "no such model" or "no such path". Both come back from
// the same servers, and only the second says the server has no Responses API (chat-only-fallback.ts). The
// bodies servers send:
//   no such model:  OpenAI  {"error":{"message":"The model `x` does not exist or you do not have access to it.",
//                            "type":"invalid_request_error","param":null,"code":"model_not_found"}}
//                   vLLM    {"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","code":404}
//                   Ollama  {"error":{"message":"model \"x\" not found, try pulling it first","type":"api_error",…}}
//                   Azure   {"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist…"}}
//   no such path:   OpenAI "Invalid URL (POST /v1/responses)"; llama.cpp {"error":{"message":"File Not Found",
//                   "type":"not_found_error","code":404}}; vLLM/FastAPI {"detail":"Not Found"}; Ollama's
//                   "404 page not found"; Express' "Cannot POST /v1/responses"; or no body at all.
// Anything that names the model (its code, its param, or the word in its message) counts as "no such model":
// a key must not be switched to Chat for a typo in a model name.

const MODEL_CODES = new Set(['model_not_found', 'deploymentnotfound', 'deployment_not_found']);

/** The error object of an answer: `error` when it is one, else the body itself (vLLM's flat shape). */
function errorOf(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.error === 'object' && record.error !== null && !Array.isArray(record.error)) return record.error as Record<string, unknown>;
  return record;
}

/** Whether a 404's body says the model (or Azure deployment) does not exist, rather than the path. */
export function saysModelNotFound(bodyText: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    // Plain text ("404 page not found", an HTML page): a model is only ever named in words.
    return /\bmodel\b/i.test(bodyText);
  }
  const error = errorOf(parsed);
  if (!error) return false;
  if (typeof error.code === 'string' && MODEL_CODES.has(error.code.toLowerCase())) return true;
  if (error.param === 'model') return true;
  // Ollama's native shape: {"error": "model 'x' not found"}.
  const message = [error.message, error.detail, (parsed as Record<string, unknown>).error].find((value) => typeof value === 'string');
  return typeof message === 'string' && /\bmodel\b|\bdeployment\b/i.test(message);
}
