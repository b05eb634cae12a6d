// What a 404 from an OpenAI-compatible server means, read from the bodies real servers send: a missing
// model (which must never switch a key to Chat) or a missing path (a server without the Responses API).
import { describe, expect, it } from 'vitest';
import { saysModelNotFound } from '../../../src-main/gateway/not-found-meaning.js';

describe('saysModelNotFound', () => {
  it.each([
    ['OpenAI', '{"error":{"message":"The model `gpt-5-typo` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}'],
    ['vLLM', '{"object":"error","message":"The model `Qwen1.5-14B-Chat` does not exist.","type":"NotFoundError","param":null,"code":404}'],
    ['Ollama (OpenAI shape)', '{"error":{"message":"model \\"llama9\\" not found, try pulling it first","type":"api_error","param":null,"code":null}}'],
    ['Ollama (native shape)', '{"error":"model \'llama9\' not found"}'],
    ['Azure', '{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}'],
    ['a server naming the param only', '{"error":{"message":"Not found","param":"model"}}'],
  ])('%s: the model is missing', (_server, body) => {
    expect(saysModelNotFound(body)).toBe(true);
  });

  it.each([
    ['OpenAI', '{"error":{"message":"Invalid URL (POST /v1/responses)","type":"invalid_request_error","param":null,"code":null}}'],
    ['llama.cpp', '{"error":{"message":"File Not Found","type":"not_found_error","code":404}}'],
    ['llama.cpp (with the path)', '{"error":{"message":"File Not Found: /v1/responses","type":"not_found_error","code":404}}'],
    ['vLLM (FastAPI)', '{"detail":"Not Found"}'],
    ['Ollama (gin)', '404 page not found'],
    ['Express', '<!DOCTYPE html><html><body><pre>Cannot POST /v1/responses</pre></body></html>'],
    ['no body', ''],
  ])('%s: the path is missing', (_server, body) => {
    expect(saysModelNotFound(body)).toBe(false);
  });
});
