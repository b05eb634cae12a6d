// The limit operations of one event-loop turn reach Redis as one script call, each caller gets its own
// operation's answer, and one operation that fails leaves the others' answers standing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptBatch, LimitOperationFailed } from '../../src-main/gateway/limits/redis/script-batch.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

let redis: TestRedis;
let inspector: ReturnType<TestRedis['client']>;
beforeAll(async () => {
  redis = await startRedis();
  inspector = redis.client();
});
afterAll(async () => {
  await redis?.close();
});

async function scriptCalls(): Promise<number> {
  const stats = await inspector.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

describe('the Redis script batch', () => {
  it('sends the operations of one turn as one script call, in order, and answers each caller', async () => {
    const batch = new ScriptBatch(redis.client());
    await redis.client().set('t:seeded', '1');
    const before = await scriptCalls();
    // 40 minute-window counts on one key, then a read of it, all in the same turn.
    const counted = Array.from({ length: 40 }, () => batch.run('countCall', ['t:req'], ['60000']));
    const read = batch.run('read', ['t:req', 't:tok', 't:day', 't:month', 't:held', 't:heldexp', 't:seeded'], ['60000', '100', '']);
    const answers = await Promise.all(counted);
    expect(answers).toEqual(Array.from({ length: 40 }, () => 'ok'));
    const figures = (await read) as string[];
    expect(figures[1]).toBe('40');
    // The first batch may have loaded the script with EVAL after a NOSCRIPT: at most two calls.
    expect((await scriptCalls()) - before).toBeLessThanOrEqual(2);
    const again = await scriptCalls();
    await Promise.all(Array.from({ length: 10 }, () => batch.run('countCall', ['t:req'], ['61000'])));
    expect((await scriptCalls()) - again).toBe(1);
  });

  it('an operation nothing waits for rides with the next batch, or goes on its own within LATER_MS', async () => {
    const batch = new ScriptBatch(redis.client());
    await redis.client().set('l:seeded', '1');
    // Alone: sent after a short wait, not at once.
    const before = await scriptCalls();
    const settled = batch.runLater('countCall', ['l:req'], ['60000']);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await scriptCalls()) - before).toBe(0);
    expect(await settled).toBe('ok');
    expect((await scriptCalls()) - before).toBe(1);
    // With a batch going anyway: in it, and ahead of what was queued after it.
    const again = await scriptCalls();
    const later = batch.runLater('countCall', ['l:req'], ['60000']);
    const read = batch.run('read', ['l:req', 'l:tok', 'l:day', 'l:month', 'l:held', 'l:heldexp', 'l:seeded'], ['60000', '100', '']);
    expect(((await read) as string[])[1]).toBe('2');
    expect(await later).toBe('ok');
    expect((await scriptCalls()) - again).toBe(1);
  });

  it('an operation that fails is refused alone; the others in its batch are answered', async () => {
    const batch = new ScriptBatch(redis.client());
    await redis.client().set('w:req', 'not a hash');
    const good = batch.run('countCall', ['g:req'], ['60000']);
    const bad = batch.run('countCall', ['w:req'], ['60000']);
    const alsoGood = batch.run('countCall', ['g:req'], ['60000']);
    await expect(bad).rejects.toBeInstanceOf(LimitOperationFailed);
    await expect(bad).rejects.toThrow(/countCall.*WRONGTYPE/);
    expect(await good).toBe('ok');
    expect(await alsoGood).toBe('ok');
    expect(await redis.client().hget('g:req', '60')).toBe('2');
  });

  it('a Redis that cannot be reached fails every operation of the batch with its error', async () => {
    const client = redis.client();
    const batch = new ScriptBatch(client);
    client.disconnect();
    const answers = await Promise.allSettled([batch.run('countCall', ['x:req'], ['60000']), batch.run('countCall', ['x:req'], ['60000'])]);
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('the Redis script batch under load', () => {
  it('keeps one batch in flight: what is queued meanwhile goes as one batch when it is answered', async () => {
    const sent: unknown[][] = [];
    const answer: Array<() => void> = [];
    const stub = {
      evalsha: (_sha: string, _keys: number, operations: string) => {
        const batch = JSON.parse(operations) as unknown[];
        sent.push(batch);
        return new Promise<string>((resolve) => answer.push(() => resolve(JSON.stringify(batch.map(() => 'ok')))));
      },
    };
    const batch = new ScriptBatch(stub as unknown as ReturnType<TestRedis['client']>);
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const first = batch.run('countCall', ['a'], ['1']);
    await turn();
    expect(sent).toHaveLength(1);
    // Three more turns' operations while the first batch is out: none is sent yet.
    const waiting = [batch.run('countCall', ['b'], ['1'])];
    await turn();
    waiting.push(batch.run('countCall', ['c'], ['1']), batch.runLater('countCall', ['d'], ['1']));
    await turn();
    expect(sent).toHaveLength(1);
    answer.shift()!();
    expect(await first).toBe('ok');
    await turn();
    expect(sent).toHaveLength(2);
    expect(sent[1].map((operation) => (operation as [string, string[]])[1][0])).toEqual(['b', 'c', 'd']);
    answer.shift()!();
    expect(await Promise.all(waiting)).toEqual(['ok', 'ok', 'ok']);
  });
});
