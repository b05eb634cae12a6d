// What every dialect must say for limits and windows (its output maximum, the answers it bills, its window
// check) is a required member of Ingress: tsc refuses a front door that leaves one out (each expected
// error below fails the typecheck if it ever stops refusing), and each registered one says it.
import { describe, expect, it } from 'vitest';
import type { Ingress } from '../../../src-main/gateway/ingress/types.js';
import { GENERATION_ROUTES, PATH_MODEL_DIALECTS } from '../../../src-main/gateway/ingress/registry.js';
import { openaiChatIngress } from '../../../src-main/gateway/ingress/openai.js';

const { maxOutputTokens: _max, ...withoutMaxOutput } = openaiChatIngress;
const { answersBilled: _answers, ...withoutAnswers } = openaiChatIngress;
const { checkWindow: _window, ...withoutWindow } = openaiChatIngress;
// @ts-expect-error a dialect that does not say its output maximum does not compile
export const missingMaxOutput: Ingress = withoutMaxOutput;
// @ts-expect-error a dialect that does not say how many answers it bills does not compile
export const missingAnswers: Ingress = withoutAnswers;
// @ts-expect-error a dialect that does not say how its window is checked does not compile
export const missingWindow: Ingress = withoutWindow;

describe('every front door says what limits and windows need', () => {
  const ingresses = [...[...GENERATION_ROUTES.values()].map((route) => route.ingress), ...PATH_MODEL_DIALECTS.map((entry) => entry.ingress)];
  it.each(ingresses.map((ingress) => [ingress.dialect, ingress] as const))('%s', (_dialect, ingress) => {
    expect(typeof ingress.maxOutputTokens).toBe('function');
    expect(ingress.answersBilled({}, 3)).toBeGreaterThanOrEqual(3);
    expect(typeof ingress.checkWindow).toBe('function');
  });
});
