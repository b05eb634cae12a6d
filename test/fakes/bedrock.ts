// A local stand-in for the Bedrock runtime's Converse API, in its wire format. It checks SigV4 with its
// own implementation (node:crypto, written from the AWS recipe, sharing nothing with the Smithy signer
// the gateway uses) and refuses a bad signature the way Bedrock does; it streams ConverseStream answers
// as real binary event-stream frames from its own encoder (CRC32 by zlib), so the gateway's decoder is
// tested against bytes it did not produce itself.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from './recording-server.js';
import { crc32 } from 'node:zlib';
import { fakeTokenCount, fakeVector } from './embeddings.js';

export interface AwsTestCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** When set, requests signed with this key must carry (and sign) it as x-amz-security-token. */
  sessionToken?: string;
}

export interface BedrockRecordedRequest extends RecordedRequest {
  /** Path and query exactly as received (the model id still percent-encoded): the same as `url`. */
  rawUrl: string;
  /** The model id, decoded. */
  modelId: string | null;
  operation: 'converse' | 'converse-stream' | 'invoke' | null;
  /** SignedHeaders of a SigV4 request, else empty. */
  signedHeaders: string[];
}

export type BedrockBehaviour = (request: BedrockRecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface BedrockFake extends RecordingServer<BedrockRecordedRequest> {
  /** What a custom host stands in for: `https://bedrock-runtime.{region}.amazonaws.com`. */
  baseUrl: string;
  region: string;
}

export interface BedrockFakeOptions {
  region?: string;
  credentials?: AwsTestCredentials[];
  /** Bedrock API keys accepted as `Authorization: Bearer`. */
  apiKeys?: string[];
}

// ---- SigV4, verified independently -------------------------------------------------------------

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Non-S3 services encode each path segment once more, so `%3A` in the sent path becomes `%253A`. */
export function canonicalUri(rawPath: string): string {
  return rawPath
    .split('/')
    .map((segment) => uriEncode(segment))
    .join('/');
}

function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return '';
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const [key, value = ''] = pair.split('=');
      const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
      return [uriEncode(decode(key)), uriEncode(decode(value))] as const;
    })
    .sort(([keyA, valueA], [keyB, valueB]) => (keyA === keyB ? (valueA < valueB ? -1 : 1) : keyA < keyB ? -1 : 1))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

interface ParsedAuthorization {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

function parseAuthorization(header: string): ParsedAuthorization | null {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(header);
  if (!match) return null;
  return { accessKeyId: match[1], date: match[2], region: match[3], service: match[4], signedHeaders: match[5].split(';'), signature: match[6] };
}

export interface SignatureCheck {
  ok: boolean;
  status: number;
  errorType: string;
  message: string;
}

const accepted: SignatureCheck = { ok: true, status: 200, errorType: '', message: '' };
const refuse = (status: number, errorType: string, message: string): SignatureCheck => ({ ok: false, status, errorType, message });

export function verifySigV4(method: string, rawUrl: string, headers: IncomingHttpHeaders, body: Buffer, region: string, keys: readonly AwsTestCredentials[]): SignatureCheck {
  const authorization = String(headers.authorization ?? '');
  const parsed = parseAuthorization(authorization);
  if (!parsed) return refuse(403, 'IncompleteSignatureException', `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters. Authorization=${authorization.split(' ')[0]}`);
  const key = keys.find((candidate) => candidate.accessKeyId === parsed.accessKeyId);
  if (!key) return refuse(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  if (parsed.service !== 'bedrock') return refuse(403, 'InvalidSignatureException', `Credential should be scoped to correct service: 'bedrock'.`);
  if (parsed.region !== region) return refuse(403, 'InvalidSignatureException', `Credential should be scoped to a valid region.`);
  for (const required of ['host', 'x-amz-date']) {
    if (!parsed.signedHeaders.includes(required)) return refuse(403, 'InvalidSignatureException', `'${required}' must be a 'SignedHeader' in the AWS Authorization.`);
  }
  if (key.sessionToken !== undefined) {
    if (headers['x-amz-security-token'] !== key.sessionToken) return refuse(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
    if (!parsed.signedHeaders.includes('x-amz-security-token')) return refuse(403, 'InvalidSignatureException', "'x-amz-security-token' must be a 'SignedHeader' in the AWS Authorization.");
  }
  const amzDate = String(headers['x-amz-date'] ?? '');
  const signedAt = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (Number.isNaN(signedAt) || Math.abs(Date.now() - signedAt) > 5 * 60_000) return refuse(403, 'InvalidSignatureException', `Signature expired: ${amzDate} is now earlier or later than 5 minutes from now.`);
  if (!amzDate.startsWith(parsed.date)) return refuse(403, 'InvalidSignatureException', 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.');

  const payloadHash = sha256Hex(body);
  const declaredHash = headers['x-amz-content-sha256'];
  if (declaredHash !== undefined && declaredHash !== payloadHash) return refuse(400, 'ValidationException', 'The provided x-amz-content-sha256 header does not match what was computed.');

  const [rawPath, rawQuery = ''] = rawUrl.split('?');
  const canonicalHeaders = parsed.signedHeaders
    .map((name) => {
      const value = headers[name];
      const text = Array.isArray(value) ? value.join(',') : (value ?? '');
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonicalRequest = [method, canonicalUri(rawPath), canonicalQuery(rawQuery), canonicalHeaders, parsed.signedHeaders.join(';'), payloadHash].join('\n');
  const scope = `${parsed.date}/${parsed.region}/${parsed.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  let signingKey = hmac(`AWS4${key.secretAccessKey}`, parsed.date);
  for (const part of [parsed.region, parsed.service, 'aws4_request']) signingKey = hmac(signingKey, part);
  const expected = Buffer.from(createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex'));
  const given = Buffer.from(parsed.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    // Bedrock adds what it computed, which shows the signed header values (a session token included).
    return refuse(
      403,
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.' +
        `\n\nThe Canonical String for this request should have been\n'${canonicalRequest}'\n\nThe String-to-Sign should have been\n'${stringToSign}'\n`,
    );
  }
  return accepted;
}

// ---- Event-stream frames, encoded independently --------------------------------------------------

const STRING_HEADER = 7;

function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = Buffer.from(name, 'utf8');
    const valueBytes = Buffer.from(value, 'utf8');
    const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    let offset = header.writeUInt8(nameBytes.length, 0);
    offset += nameBytes.copy(header, offset);
    offset = header.writeUInt8(STRING_HEADER, offset);
    offset = header.writeUInt16BE(valueBytes.length, offset);
    valueBytes.copy(header, offset);
    parts.push(header);
  }
  return Buffer.concat(parts);
}

/** `[total u32][headers u32][prelude crc u32][headers][payload][message crc u32]`, big-endian. */
export function encodeFrame(headers: Record<string, string>, payload: Buffer): Buffer {
  const headerBytes = encodeHeaders(headers);
  const total = 12 + headerBytes.length + payload.length + 4;
  const frame = Buffer.alloc(total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(headerBytes.length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8);
  headerBytes.copy(frame, 12);
  payload.copy(frame, 12 + headerBytes.length);
  frame.writeUInt32BE(crc32(frame.subarray(0, total - 4)), total - 4);
  return frame;
}

export function eventFrame(eventType: string, body: object): Buffer {
  return encodeFrame({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify(body)));
}

export function exceptionFrame(exceptionType: string, message: string): Buffer {
  return encodeFrame({ ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' }, Buffer.from(JSON.stringify({ message })));
}

// ---- Answers ----------------------------------------------------------------------------------------

export const BEDROCK_USAGE = { inputTokens: 7, outputTokens: 5, totalTokens: 15, cacheReadInputTokens: 2, cacheWriteInputTokens: 1 };

/** The text the fake answers: it repeats the last user message, so tests can tell calls apart. */
export function bedrockAnswerText(json: Record<string, unknown>): string {
  const messages = Array.isArray(json.messages) ? (json.messages as { role: string; content: { text?: string }[] }[]) : [];
  const lastUser = messages.filter((message) => message.role === 'user').at(-1);
  return `bedrock says: ${(lastUser?.content ?? []).map((block) => block.text ?? '').join(' ')}`;
}

function words(text: string): string[] {
  return text.split(' ').map((word, i) => (i ? ' ' : '') + word);
}

// ---- Embeddings through InvokeModel: Titan and Cohere Embed, each in its model's own body ------------------

/** Cohere Embed v3's vector length is 1024; the double's is shorter. */
export const COHERE_EMBEDDING_DIMENSIONS = 6;
const COHERE_INPUT_TYPES = ['search_document', 'search_query', 'classification', 'clustering', 'image'];
const extraneous = (json: Json, allowed: string[]): string | undefined => Object.keys(json).find((key) => !allowed.includes(key));

/** Titan text embeddings: one `inputText` a call; v2 makes 1024 (or 512, 256) dimensions, v1 1536 (the double: 8 unless asked). */
function answerTitan(request: BedrockRecordedRequest, res: ServerResponse, v2: boolean): void {
  const json = request.json;
  const allowed = v2 ? ['inputText', 'dimensions', 'normalize', 'embeddingTypes'] : ['inputText'];
  const extra = extraneous(json, allowed);
  if (extra) return void bedrockError(400, 'ValidationException', `Malformed input request: #: extraneous key [${extra}] is not permitted, please reformat your input and try again.`)(request, res);
  if (typeof json.inputText !== 'string' || json.inputText === '') return void bedrockError(400, 'ValidationException', 'Malformed input request: #/inputText: expected minLength: 1, actual: 0, please reformat your input and try again.')(request, res);
  if (json.dimensions !== undefined && ![256, 512, 1024].includes(json.dimensions as number)) {
    return void bedrockError(400, 'ValidationException', `Malformed input request: #/dimensions: ${String(json.dimensions)} is not a valid enum value, please reformat your input and try again.`)(request, res);
  }
  const dimensions = (json.dimensions as number | undefined) ?? 8;
  res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'bedrock-embed-1', 'x-amzn-bedrock-input-token-count': String(fakeTokenCount(json.inputText)) });
  res.end(JSON.stringify({ embedding: fakeVector(json.inputText, dimensions), inputTextTokenCount: fakeTokenCount(json.inputText) }));
}

/** Cohere Embed: `texts` (1 to 96) with a required `input_type`; the token count only in a header. */
function answerCohere(request: BedrockRecordedRequest, res: ServerResponse, v4: boolean): void {
  const json = request.json;
  const extra = extraneous(json, ['texts', 'images', 'input_type', 'truncate', 'embedding_types', ...(v4 ? ['output_dimension', 'max_tokens', 'inputs'] : [])]);
  if (extra) return void bedrockError(400, 'ValidationException', `Malformed input request: #: extraneous key [${extra}] is not permitted, please reformat your input and try again.`)(request, res);
  if (!COHERE_INPUT_TYPES.includes(json.input_type as string)) return void bedrockError(400, 'ValidationException', 'Malformed input request: #: required key [input_type] not found, please reformat your input and try again.')(request, res);
  const texts = json.texts;
  if (!Array.isArray(texts) || texts.length === 0 || texts.length > 96 || !texts.every((text) => typeof text === 'string')) {
    return void bedrockError(400, 'ValidationException', 'Malformed input request: #/texts: expected between 1 and 96 strings, please reformat your input and try again.')(request, res);
  }
  const dimensions = (json.output_dimension as number | undefined) ?? COHERE_EMBEDDING_DIMENSIONS;
  const tokens = (texts as string[]).reduce((sum, text) => sum + fakeTokenCount(text), 0);
  res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'bedrock-embed-2', 'x-amzn-bedrock-input-token-count': String(tokens) });
  res.end(JSON.stringify({ id: 'cohere-embed-1', texts, embeddings: (texts as string[]).map((text) => fakeVector(text, dimensions)), response_type: 'embeddings_floats' }));
}

function answerInvoke(request: BedrockRecordedRequest, res: ServerResponse): void {
  const model = request.modelId ?? '';
  if (/amazon\.titan-embed-text-v[12]/.test(model)) return answerTitan(request, res, model.includes('-v2'));
  if (/cohere\.embed-/.test(model)) return answerCohere(request, res, model.includes('embed-v4'));
  bedrockError(400, 'ValidationException', `The provided model identifier is invalid.`)(request, res);
}

export function defaultBedrockAnswer(request: BedrockRecordedRequest, res: ServerResponse): void {
  if (request.operation === 'invoke') return answerInvoke(request, res);
  const problem = converseRequestProblem(request.json);
  if (problem) return void bedrockError(400, 'ValidationException', problem)(request, res);
  const text = bedrockAnswerText(request.json);
  if (request.operation === 'converse-stream') {
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'bedrock-req-1' });
    // Padding `p` as Bedrock adds it; one frame is cut across two writes to test reassembly.
    const frames = [
      eventFrame('messageStart', { p: 'abcdefgh', role: 'assistant' }),
      eventFrame('contentBlockStart', { contentBlockIndex: 0, start: {}, p: 'ab' }),
      ...words(text).map((piece) => eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: piece }, p: 'abcd' })),
      eventFrame('contentBlockStop', { contentBlockIndex: 0, p: 'abcdef' }),
      eventFrame('messageStop', { stopReason: 'end_turn', p: 'abc' }),
      eventFrame('metadata', { usage: BEDROCK_USAGE, metrics: { latencyMs: 12 }, p: 'a' }),
    ];
    const bytes = Buffer.concat(frames);
    const cut = frames[0].length + 7;
    res.write(bytes.subarray(0, cut));
    res.end(bytes.subarray(cut));
    return;
  }
  const answer = {
    output: { message: { role: 'assistant', content: [{ text: words(text)[0] }, { text: words(text).slice(1).join('') }] } },
    stopReason: 'end_turn',
    usage: BEDROCK_USAGE,
    metrics: { latencyMs: 12 },
  };
  res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'bedrock-req-1' });
  res.end(JSON.stringify(answer));
}

/** Bedrock's error: `{message}` in the body, the error's name in `x-amzn-ErrorType`. */
export function bedrockError(status: number, errorType: string, message: string): BedrockBehaviour {
  return (_request, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': `${errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': 'bedrock-req-err' });
    res.end(JSON.stringify({ message }));
  };
}

/** A stream that starts, then fails with an in-stream exception frame. */
export function streamWithException(exceptionType: string, message: string): BedrockBehaviour {
  return (_request, res) => {
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    res.write(eventFrame('messageStart', { role: 'assistant' }));
    res.write(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'partial' } }));
    res.end(exceptionFrame(exceptionType, message));
  };
}

/** A streamed answer that stops for a given reason. */
export function streamStoppingFor(stopReason: string): BedrockBehaviour {
  return (_request, res) => {
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    res.write(eventFrame('messageStart', { role: 'assistant' }));
    res.write(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'cut' } }));
    res.write(eventFrame('messageStop', { stopReason }));
    res.end(eventFrame('metadata', { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, metrics: { latencyMs: 1 } }));
  };
}

// ---- The checks Converse makes of a request body (pure, usable without a server) ------------------------

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys a Converse ContentBlock may carry (one of them per block). */
const CONTENT_BLOCK_KEYS = ['text', 'image', 'document', 'video', 'toolUse', 'toolResult', 'guardContent', 'cachePoint', 'reasoningContent', 'citationsContent', 'searchResult'];

/**
 * The checks the Bedrock Converse / ConverseStream API makes of a request body, in its own words (a 400
 * ValidationException). Returns the message, or undefined when the real API would accept the body.
 */
export function converseRequestProblem(json: unknown): string | undefined {
  if (!isObject(json)) return 'Malformed input request, please reformat your input and try again.';
  const messages = json.messages;
  if (messages === undefined || messages === null) return "1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null";
  if (!Array.isArray(messages)) return 'Malformed input request: messages must be a list, please reformat your input and try again.';
  if (messages.length === 0) return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  if (json.system !== undefined) {
    if (!Array.isArray(json.system)) return 'Malformed input request: system must be a list, please reformat your input and try again.';
    for (const [j, block] of json.system.entries()) {
      if (isObject(block) && typeof block.text === 'string' && block.text.trim() === '') return `The text field in the SystemContentBlock object at system.${j} is blank. Add text to the text field, and try again.`;
    }
  }
  let usesTools = false;
  let previousToolUseIds: string[] = [];
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `Malformed input request: messages.${i} must be an object, please reformat your input and try again.`;
    if (message.role !== 'user' && message.role !== 'assistant') return `1 validation error detected: Value '${String(message.role)}' at 'messages.${i + 1}.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]`;
    if (i === 0 && message.role !== 'user') return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
    if (i > 0 && (messages[i - 1] as Json).role === message.role) return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    const content = message.content;
    if (content === undefined || content === null) return `1 validation error detected: Value null at 'messages.${i + 1}.member.content' failed to satisfy constraint: Member must not be null`;
    if (!Array.isArray(content)) return `Malformed input request: messages.${i}.content must be a list, please reformat your input and try again.`;
    if (content.length === 0) return `The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.`;
    const toolUseIds: string[] = [];
    const toolResultIds: string[] = [];
    for (const [j, block] of content.entries()) {
      if (!isObject(block)) return `Malformed input request: messages.${i}.content.${j} must be an object, please reformat your input and try again.`;
      const keys = Object.keys(block).filter((key) => CONTENT_BLOCK_KEYS.includes(key));
      if (keys.length !== 1) return `Malformed input request: messages.${i}.content.${j} must set exactly one of ${CONTENT_BLOCK_KEYS.join(', ')}, please reformat your input and try again.`;
      if ('text' in block && (typeof block.text !== 'string' || block.text.trim() === '')) {
        return `The text field in the ContentBlock object at messages.${i}.content.${j} is blank. Add text to the text field, and try again.`;
      }
      if ('toolUse' in block) {
        usesTools = true;
        const toolUse = block.toolUse as Json;
        if (message.role !== 'assistant') return `messages.${i}.content.${j}: toolUse blocks can only be in assistant messages.`;
        toolUseIds.push(String(toolUse?.toolUseId));
      }
      if ('toolResult' in block) {
        usesTools = true;
        const toolResult = block.toolResult as Json;
        if (message.role !== 'user') return `messages.${i}.content.${j}: toolResult blocks can only be in user messages.`;
        if (toolResult?.status === 'error' && (!Array.isArray(toolResult.content) || toolResult.content.length === 0)) {
          return `The content field at messages.${i}.content.${j}.toolResult cannot be empty when status value is error.`;
        }
        toolResultIds.push(String(toolResult?.toolUseId));
      }
    }
    if (message.role === 'user') {
      if (toolResultIds.length > previousToolUseIds.length) return `The number of toolResult blocks at messages.${i}.content exceeds the number of toolUse blocks of previous turn.`;
      const unknown = toolResultIds.filter((id) => !previousToolUseIds.includes(id));
      if (unknown.length) return `The toolUseId ${unknown.join(', ')} of the toolResult blocks at messages.${i}.content does not match any toolUse block of the previous turn.`;
      const missing = previousToolUseIds.filter((id) => !toolResultIds.includes(id));
      if (missing.length) return `Expected toolResult blocks at messages.${i}.content for the following Ids: ${missing.join(', ')}`;
    }
    previousToolUseIds = message.role === 'assistant' ? toolUseIds : [];
  }
  if (usesTools && !isObject(json.toolConfig)) return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  return undefined;
}

// ---- Server ---------------------------------------------------------------------------------------

const ROUTE = /\/model\/([^/]+)\/(converse|converse-stream|invoke)$/;

export async function startBedrockFake(options: BedrockFakeOptions = {}): Promise<BedrockFake> {
  const region = options.region ?? 'us-east-1';
  const keys = options.credentials ?? [];
  const apiKeys = new Set(options.apiKeys ?? []);
  const server = await startRecordingServer<BedrockRecordedRequest>(defaultBedrockAnswer, {
    describe: (request) => {
      const route = ROUTE.exec(request.url.split('?')[0]);
      return {
        ...request,
        rawUrl: request.url,
        modelId: route ? decodeURIComponent(route[1]) : null,
        operation: route ? (route[2] as 'converse' | 'converse-stream' | 'invoke') : null,
        signedHeaders: parseAuthorization(String(request.headers.authorization ?? ''))?.signedHeaders ?? [],
      };
    },
    // Bedrock checks credentials before it looks at the route or the body.
    gate: (request, res) => {
      const authorization = String(request.headers.authorization ?? '');
      let refusal: BedrockBehaviour | undefined;
      if (authorization.startsWith('Bearer ')) {
        if (!apiKeys.has(authorization.slice('Bearer '.length))) refusal = bedrockError(403, 'AccessDeniedException', 'Invalid API Key format: Must start with pre-defined prefix');
      } else if (!authorization) {
        refusal = bedrockError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
      } else {
        const check = verifySigV4(request.method, request.rawUrl, request.headers, request.body, region, keys);
        if (!check.ok) refusal = bedrockError(check.status, check.errorType, check.message);
      }
      if (!refusal && !request.modelId) refusal = bedrockError(404, 'UnknownOperationException', 'Unknown operation');
      if (!refusal) return false;
      void refusal(request, res);
      return true;
    },
  });
  return { ...server, baseUrl: server.origin, region };
}
