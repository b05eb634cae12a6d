// A preparing thread (one of the pool in prepare-pool.ts): reads a large request body as the serving thread
// would — scan, parse, the dialect's check, decode, count, encode, with the same code — and answers with
// small facts or encoded bytes. It keeps nothing between jobs: each job parses the body it is given.
import { parentPort } from 'node:worker_threads';
import { WORKER_READY } from '../../core/worker-pool.js';
import { setModelOverrides } from '../../catalog/catalog.js';
import { refuseUnsafeJson } from '../../core/json-scan.js';
import type { CanonicalRequest } from '../../codecs/canonical.js';
import { parseGeneration, type RawBody } from '../request-body.js';
import { parseEmbeddings } from '../embeddings/embeddings-body.js';
import { embeddingsIngressOf } from '../embeddings/embeddings-ingress.js';
import { estimatePromptTokens } from '../routing/conditions.js';
import { failureData, INGRESSES, type EmbeddingsReply, type EncodedReply, type GenerationFacts, type PrepareJob } from './jobs.js';

interface Answer {
  value: unknown;
  transfer?: ArrayBuffer[];
}

function rawBodyOf(bytes: SharedArrayBuffer): RawBody {
  // A copy this thread owns: the serving thread keeps the shared bytes for the next question.
  const own = Buffer.from(new Uint8Array(bytes));
  return { bytes: own, text: own.toString('utf8') };
}

/** Every JSON value in a parsed body (objects, arrays and scalars), counted without recursion. */
function countValues(root: unknown): number {
  let count = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    count++;
    if (typeof value === 'object' && value !== null) for (const child of Object.values(value)) stack.push(child);
  }
  return count;
}

async function answer(job: PrepareJob): Promise<Answer> {
  if (job.kind === 'json') {
    const body = rawBodyOf(job.bytes);
    refuseUnsafeJson(body.bytes);
    return { value: { values: countValues(JSON.parse(body.text)) } };
  }
  if (job.kind === 'embeddings') {
    const inbound = parseEmbeddings(rawBodyOf(job.bytes), embeddingsIngressOf(job.ingress), job.defaultModel);
    const reply: EmbeddingsReply = { request: inbound.request, rawModel: inbound.rawModel };
    return { value: reply };
  }
  const { route, ask } = job;
  const generation = parseGeneration(rawBodyOf(job.bytes), { ingress: INGRESSES[route.ingress], operation: route.operation, path: route.path }, job.defaultModel);
  if ('facts' in ask) {
    const { model, stream, n, streamFraming } = generation.request;
    let traits: GenerationFacts['traits'];
    try {
      const decoded = generation.canonical();
      traits = { promptTokens: estimatePromptTokens(decoded), thinking: decoded.reasoning?.enabled === true, tools: (decoded.tools?.length ?? 0) > 0 };
    } catch (error) {
      traits = { failure: failureData(error) };
    }
    const facts: GenerationFacts = {
      request: { model, stream, n, ...(streamFraming ? { streamFraming } : {}) },
      rawModel: generation.rawModel,
      maxOutputTokens: generation.maxOutputTokens,
      answersBilled: generation.answersBilled,
      traits,
    };
    return { value: facts };
  }
  if ('window' in ask) {
    // The catalog as the serving thread sees it, the user's overrides included.
    setModelOverrides(ask.window.overrides);
    await generation.checkWindow(ask.window.provider, ask.window.model);
    return { value: null };
  }
  if ('encode' in ask) {
    const encoded = generation.encodeFor(ask.encode);
    const bytes = new TextEncoder().encode(typeof encoded.body === 'string' ? encoded.body : encoded.body.toString('utf8'));
    // What the answer's codecs read of the request: everything but the prompt itself.
    const head: CanonicalRequest = { ...encoded.request, system: [], turns: [] };
    const reply: EncodedReply = { body: bytes, dropped: encoded.dropped, copies: encoded.copies, request: head };
    return { value: reply, transfer: [bytes.buffer as ArrayBuffer] };
  }
  return { value: await generation.inputTokens() };
}

parentPort!.on('message', ({ id, job }: { id: number; job: PrepareJob }) => {
  answer(job).then(
    ({ value, transfer }) => parentPort!.postMessage({ id, value }, transfer ?? []),
    (error: unknown) => parentPort!.postMessage({ id, failure: failureData(error) }),
  );
});
// Loaded: the pool starts each job's clock from here on (gateway/prepare/prepare-pool.ts).
parentPort!.postMessage(WORKER_READY);
