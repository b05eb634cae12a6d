// One Responses WebSocket after its upgrade: each `response.create` message is a turn, run through the same
// pipeline as `POST /v1/responses` (turn-exchange.ts), one at a time; a turn naming a response this socket
// made is sent up with its whole input rebuilt (socket-history.ts). The key is checked again by every turn
// (the pipeline's authenticate step reads the upgrade's headers each time), so a key revoked while the
// socket is open is refused at its next turn. Bad JSON or a second turn while one runs gets an `error`
// event and the socket stays usable; a socket idle for its bound is closed.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { WebSocket, type RawData } from 'ws';
import { GatewayError, invalidRequest } from '../../core/errors.js';
import { refuseUnsafeJson } from '../../core/json-scan.js';
import { isPlainObject } from '../../core/plain-object.js';
import { handleProxy, type ProxyDependencies } from '../proxy.js';
import { withHeaders, withProviderCaller } from '../front.js';
import { GENERATION_ROUTES } from '../ingress/registry.js';
import type { GenerationRoute } from '../ingress/types.js';
import { inputItems, SocketHistory, type HistoryBounds } from './socket-history.js';
import { asServerResponse, turnRequest, TurnResponse } from './turn-exchange.js';
import { gatewayErrorEvent, TURN_IN_FLIGHT, warmupEvents } from './socket-events.js';

export const RESPONSES_PATH = '/v1/responses';
const RESPONSES_ROUTE = GENERATION_ROUTES.get(RESPONSES_PATH) as GenerationRoute;

export interface ResponsesSocketOptions {
  deps: ProxyDependencies;
  /** A socket with no turn running and no message for this long is closed. */
  idleMs: number;
  history: HistoryBounds;
  /** Told of each turn's handling (the server's shutdown waits on it, as on a request). */
  trackRequest?: (handled: Promise<void>) => void;
}

/** Close codes: a normal close (idle, shutdown) and a close because the gateway stops. */
const IDLE_CLOSE = 1000;
const GOING_AWAY = 1001;

export class ResponsesSocket {
  private readonly history: SocketHistory;
  private running: TurnResponse | 'warming' | undefined;
  private idle: NodeJS.Timeout | undefined;
  private closeAfterTurn = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly upgradeHeaders: IncomingHttpHeaders,
    private readonly options: ResponsesSocketOptions,
  ) {
    this.history = new SocketHistory(options.history);
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => this.onClose());
    // A protocol fault (a message over the size cap, a bad frame): ws answers it with a close of its own.
    ws.on('error', () => {});
    this.armIdle();
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Stopping: an idle socket closes now, a running turn finishes first. */
  closeWhenIdle(): void {
    if (this.running) this.closeAfterTurn = true;
    else this.ws.close(GOING_AWAY, 'Gatehouse is stopping');
  }

  terminate(): void {
    this.ws.terminate();
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    this.armIdle();
    if (this.running) return this.send(TURN_IN_FLIGHT());
    let event: Record<string, unknown>;
    try {
      event = readEvent(data, isBinary);
    } catch (error) {
      return this.send(gatewayErrorEvent(error instanceof GatewayError ? error : invalidRequest('The message could not be read')));
    }
    const { type: _type, generate, stream: _stream, ...body } = event;
    const turn = this.turnBody(body);
    if (generate === false) return this.warmUp(body, turn);
    this.run(turn);
  }

  /**
   * The turn as a POST body: its input rebuilt when `previous_response_id` names a response of this socket;
   * left as it came otherwise (an id of another socket or stored at the provider follows the POST's rules).
   */
  private turnBody(body: Record<string, unknown>): { body: Record<string, unknown>; input: unknown[] | undefined } {
    const newInput = inputItems(body.input);
    const previous = typeof body.previous_response_id === 'string' ? this.history.itemsOf(body.previous_response_id) : undefined;
    if (previous && newInput) {
      const { previous_response_id: _previous, ...rest } = body;
      const input = [...previous, ...newInput];
      return { body: { ...rest, input }, input };
    }
    // Kept for a later continuation only when this turn carries its whole context.
    const input = body.previous_response_id === undefined || body.previous_response_id === null ? newInput : undefined;
    return { body, input };
  }

  /** A warm-up (`generate: false`): nothing is generated; the key is checked, and the input kept for the next turn. */
  private warmUp(event: Record<string, unknown>, turn: { body: Record<string, unknown>; input: unknown[] | undefined }): void {
    try {
      withProviderCaller(withHeaders({ req: { headers: this.upgradeHeaders } }), this.options.deps);
    } catch (error) {
      return this.send(gatewayErrorEvent(error instanceof GatewayError ? error : new GatewayError(500, 'api_error', 'Internal gateway error')));
    }
    const id = `resp_gh${randomBytes(16).toString('hex')}`;
    if (turn.input) this.history.remember(id, turn.input, [], JSON.stringify(turn.input).length);
    for (const message of warmupEvents(id, event)) this.send(message);
  }

  private run(turn: { body: Record<string, unknown>; input: unknown[] | undefined }): void {
    const bytes = Buffer.from(JSON.stringify({ ...turn.body, stream: true }));
    const response = new TurnResponse({
      send: (message, sent) => (this.ws.readyState === WebSocket.OPEN ? this.ws.send(message, sent) : sent()),
      get bufferedAmount() {
        return socketBuffered();
      },
    });
    const socketBuffered = () => this.ws.bufferedAmount;
    this.running = response;
    this.disarmIdle();
    const handled = handleProxy(turnRequest(this.upgradeHeaders, bytes), asServerResponse(response), RESPONSES_ROUTE, RESPONSES_PATH, this.options.deps).then(() => {
      const final = response.finalResponse;
      if (turn.input && final && typeof final.id === 'string' && Array.isArray(final.output)) {
        this.history.remember(final.id, turn.input, final.output, bytes.length + JSON.stringify(final.output).length);
      }
    });
    this.options.trackRequest?.(handled);
    // The turn's own failures are answered and logged by the pipeline; whatever else happens, the socket goes on.
    void handled.catch((error: unknown) => console.error('Gatehouse: a WebSocket turn failed', error)).finally(() => this.turnEnded(response));
  }

  private turnEnded(response: TurnResponse): void {
    if (this.running !== response) return;
    this.running = undefined;
    if (this.closeAfterTurn) return this.ws.close(GOING_AWAY, 'Gatehouse is stopping');
    this.armIdle();
  }

  private onClose(): void {
    this.disarmIdle();
    this.history.clear();
    // A turn still running loses its client: the pipeline aborts the provider call and logs a 499.
    if (this.running instanceof TurnResponse && !this.running.writableFinished) this.running.destroy();
  }

  private send(message: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(message);
  }

  private armIdle(): void {
    this.disarmIdle();
    if (this.running) return;
    this.idle = setTimeout(() => this.ws.close(IDLE_CLOSE, `Idle for ${Math.round(this.options.idleMs / 1000)} s`), this.options.idleMs);
    this.idle.unref();
  }

  private disarmIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
  }
}

/** A client message as an object: JSON text within the JSON rules of a POST body (depth, no name given twice), of type `response.create`. */
function readEvent(data: RawData, isBinary: boolean): Record<string, unknown> {
  if (isBinary) throw invalidRequest('Send each event as a text message of JSON', 'type', 'invalid_json');
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  let event: unknown;
  try {
    refuseUnsafeJson(bytes);
    event = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    const reason = error instanceof GatewayError ? error.message : `The message is not valid JSON: ${(error as Error).message}`;
    throw invalidRequest(reason, null, 'invalid_json');
  }
  if (!isPlainObject(event)) throw invalidRequest('Each message must be a JSON object with a `type`', 'type', 'invalid_json');
  if (event.type !== 'response.create') {
    throw invalidRequest(`Unsupported event type ${JSON.stringify(event.type)}: this socket takes only response.create`, 'type', 'unsupported_event_type');
  }
  return event;
}
