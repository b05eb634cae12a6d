import { describe, expect, it } from 'vitest';
import { mapVertexError, vertexAi } from '../../../src-main/providers/vertex-ai.js';
import { chatCall, completionCall, sentRequest } from './call.js';

const vertex = (projectId = 'proj', region = 'us-central1') => ({ token: 'ya29.t', vertex: { projectId, region } });

describe('vertex-ai URLs', () => {
  it('uses the regional endpoint by default', () => {
    expect(sentRequest(vertexAi, completionCall(vertexAi, { model: 'gemini-2.0-flash', prompt: 'p' }, vertex())).url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/proj/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent',
    );
  });

  it('uses the global endpoint for the global location', () => {
    expect(sentRequest(vertexAi, completionCall(vertexAi, { model: 'gemini-2.0-flash', prompt: 'p', stream: true }, vertex('proj', 'global'))).url).toBe(
      'https://aiplatform.googleapis.com/v1/projects/proj/locations/global/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse',
    );
  });

  it('sends Claude models to the anthropic publisher with rawPredict, keeping @ in the model id', () => {
    const request = sentRequest(vertexAi, chatCall(vertexAi, { model: 'claude-3-5-haiku@20241022', messages: [{ role: 'user', content: 'x' }], stream: true }, vertex('proj', 'us-east5')));
    expect(request.url).toBe('https://us-east5-aiplatform.googleapis.com/v1/projects/proj/locations/us-east5/publishers/anthropic/models/claude-3-5-haiku@20241022:streamRawPredict');
    const body = JSON.parse(String(request.body));
    expect(body).not.toHaveProperty('model');
    expect(body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
    expect(request.headers.authorization).toBe('Bearer ya29.t');
  });

  it('forwards the request type under Vertex’s header name', () => {
    const call = completionCall(vertexAi, { model: 'gemini-2.0-flash', prompt: 'p' }, { token: 't', vertex: { projectId: 'p', region: 'europe-west4', requestType: 'shared' } });
    expect(sentRequest(vertexAi, call).headers['x-vertex-ai-llm-request-type']).toBe('shared');
  });

  it('refuses a missing project or region with a 400 naming the header', () => {
    expect(() => sentRequest(vertexAi, completionCall(vertexAi, { model: 'g', prompt: 'p' }, { token: 't', vertex: { region: 'us-central1' } }))).toThrow(/x-gateway-cloud-b-project-id/);
    expect(() => sentRequest(vertexAi, completionCall(vertexAi, { model: 'g', prompt: 'p' }, { token: 't', vertex: { projectId: 'p' } }))).toThrow(/x-gateway-cloud-b-region/);
    expect(() => sentRequest(vertexAi, completionCall(vertexAi, { model: 'g', prompt: 'p' }, { token: 't' }))).toThrow(/x-gateway-cloud-b-project-id/);
  });
});

describe('mapVertexError', () => {
  it('reads Google front-end errors and Claude’s own errors', () => {
    expect(mapVertexError(429, JSON.stringify({ error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } }))).toMatchObject({ message: 'Quota exceeded', code: 'RESOURCE_EXHAUSTED' });
    expect(mapVertexError(529, JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }))).toMatchObject({ message: 'Overloaded', code: 'overloaded_error' });
  });
});
