// A generation whose body a preparing thread read: the serving thread holds its bytes and small facts,
// and asks the preparing threads whatever needs the parsed body (a target's window, its encoded request,
// the prompt's tokens), each answer a small value or bytes.
import type { Ingress } from '../ingress/types.js';
import type { Operation } from '../../providers/types.js';
import type { RequestTraits } from '../routing/conditions.js';
import type { TokenCount } from '../token-count.js';
import type { CallRequest, EncodedRequest, EncodeSpec, Generation } from '../request-body.js';
import { currentModelOverrides } from '../../catalog/catalog.js';
import { failureError, type EncodedReply, type GenerationAsk, type GenerationFacts } from './jobs.js';

export class PreparedGeneration implements Generation {
  readonly request: CallRequest;
  readonly rawModel: unknown;
  readonly maxOutputTokens: number | undefined;
  readonly answersBilled: number;
  readonly traits: RequestTraits;

  constructor(
    readonly ingress: Ingress,
    readonly operation: Operation,
    readonly rawBody: Buffer,
    readonly bodyText: string,
    facts: GenerationFacts,
    /** Asks a preparing thread about this body. */
    private readonly ask: <T>(question: GenerationAsk) => Promise<T>,
  ) {
    this.request = facts.request;
    this.rawModel = facts.rawModel;
    this.maxOutputTokens = facts.maxOutputTokens;
    this.answersBilled = facts.answersBilled;
    const traits = facts.traits;
    // A body that does not decode fails a route's condition as the serving thread's lazy decode would: when asked.
    const read = <K extends 'promptTokens' | 'thinking' | 'tools'>(key: K) => () => {
      if ('failure' in traits) throw failureError(traits.failure);
      return traits[key];
    };
    this.traits = { promptTokens: read('promptTokens'), thinking: read('thinking'), tools: read('tools') };
  }

  checkWindow(provider: string, model: string): Promise<void> {
    return this.ask({ window: { provider, model, overrides: currentModelOverrides() } });
  }

  encodeFor(spec: EncodeSpec): Promise<EncodedRequest> {
    return this.ask<EncodedReply>({ encode: spec }).then((reply) => ({ ...reply, body: Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength) }));
  }

  inputTokens(): Promise<TokenCount> {
    return this.ask({ inputTokens: true });
  }
}
