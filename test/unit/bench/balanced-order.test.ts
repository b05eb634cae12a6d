// The team rows of `npm run bench` are measured in a balanced order, so that no row always runs right
// after the same other row (and pays for what it left behind: PostgreSQL's autovacuum, a log still being written).
import { describe, expect, it } from 'vitest';
import { balancedOrder } from '../../../bench/team.js';

describe('the bench order of the team rows', () => {
  it('over four rounds runs each row once in each place and right after each other row once', () => {
    const rounds = [0, 1, 2, 3].map((round) => balancedOrder(4, round));
    for (const order of rounds) expect([...order].sort()).toEqual([0, 1, 2, 3]);
    for (let place = 0; place < 4; place++) expect(new Set(rounds.map((order) => order[place])).size).toBe(4);
    const follows = rounds.flatMap((order) => order.slice(1).map((target, place) => `${order[place]}→${target}`));
    expect(new Set(follows).size).toBe(12);
  });
});
