// The memory a Responses WebSocket keeps for `previous_response_id` (gateway/websocket/socket-history.ts):
// a continuation starts from the whole input and output of the response it names, and what is kept stays
// within its bounds — per socket by count and size, and across all sockets by one shared size.
import { describe, expect, it } from 'vitest';
import { inputItems, SocketHistory } from '../../../src-main/gateway/websocket/socket-history.js';

const bounds = (maxResponses: number, maxChars: number, sharedMax = 1_000) => ({ maxResponses, maxChars, shared: { used: 0, max: sharedMax } });

describe('SocketHistory', () => {
  it('answers a continuation with the input it was sent with, then its output', () => {
    const history = new SocketHistory(bounds(4, 100));
    history.remember('resp_1', ['a', 'b'], ['out'], 10);
    expect(history.itemsOf('resp_1')).toEqual(['a', 'b', 'out']);
    expect(history.itemsOf('resp_other')).toBeUndefined();
  });

  it('lets the oldest go past its count or its size, and keeps none larger than its size', () => {
    const history = new SocketHistory(bounds(2, 30));
    history.remember('resp_1', ['1'], [], 10);
    history.remember('resp_2', ['2'], [], 10);
    history.remember('resp_3', ['3'], [], 10);
    expect([history.itemsOf('resp_1'), history.size]).toEqual([undefined, 2]);
    history.remember('resp_4', ['4'], [], 25);
    expect(['resp_2', 'resp_3', 'resp_4'].map((id) => history.itemsOf(id) !== undefined)).toEqual([false, false, true]);
    history.remember('resp_5', ['5'], [], 31);
    expect(history.itemsOf('resp_5')).toBeUndefined();
  });

  it('keeps all sockets together within the shared bound, and gives their share back when they close', () => {
    const shared = { used: 0, max: 50 };
    const first = new SocketHistory({ maxResponses: 8, maxChars: 40, shared });
    const second = new SocketHistory({ maxResponses: 8, maxChars: 40, shared });
    first.remember('resp_a', ['a'], [], 40);
    second.remember('resp_b', ['b'], [], 20);
    expect(second.itemsOf('resp_b')).toBeUndefined();
    expect(shared.used).toBe(40);
    first.clear();
    expect(shared.used).toBe(0);
    second.remember('resp_b', ['b'], [], 20);
    expect([second.itemsOf('resp_b'), shared.used]).toEqual([['b'], 20]);
  });

  it('reads input as the Responses API does: a string is one user message, absent is none, anything else is not rebuilt', () => {
    expect(inputItems('hi')).toEqual([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]);
    expect(inputItems(undefined)).toEqual([]);
    expect(inputItems(42)).toBeUndefined();
  });
});
