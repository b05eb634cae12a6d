// The Python client (clients/python) against a running gateway and an OpenAI-format provider double:
// runs its unittest suite with the addresses in the environment and checks what reached the provider.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

let gateway: TestGateway;
let fake: OpenAIFake;

beforeAll(async () => {
  gateway = await startGateway();
  fake = await startOpenAIFake();
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});

interface ProcessResult {
  code: number | null;
  output: string;
}

/** Runs a command without blocking this process, which is also serving the gateway the command talks to. */
function run(command: string, args: string[], env: Record<string, string>): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString('utf8')));
    child.stderr.on('data', (data: Buffer) => (output += data.toString('utf8')));
    child.on('error', (error) => reject(new Error(`could not run ${command} (Python 3.9+ is needed for this test): ${error.message}`)));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('gatehouse for Python against the gateway', () => {
  it('passes its unittest suite, none of it skipped, and its custom and forwarded headers reach the provider', async () => {
    const result = await run('python3', ['-m', 'unittest', 'discover', '-v', '-s', 'clients/python/tests'], {
      GATEHOUSE_TEST_GATEWAY_URL: gateway.baseUrl,
      GATEHOUSE_TEST_GATEWAY_KEY: gateway.apiKey,
      GATEHOUSE_TEST_PROVIDER_URL: fake.baseUrl,
      GATEHOUSE_TEST_ADMIN_TOKEN: gateway.adminToken,
      // The suite must work on the gateway key it is given, not on one from the developer's shell.
      GATEWAY_API_KEY: '',
      PYTHONDONTWRITEBYTECODE: '1',
    });
    expect(result.code, `python3 -m unittest failed:\n${result.output}`).toBe(0);
    expect(result.output, `some Python tests were skipped:\n${result.output}`).not.toMatch(/skipped/);

    const custom = fake.requests.find((request) => request.headers['x-python-custom-header'] === 'from-python');
    expect(custom, 'the X_Python_Custom_Header keyword did not reach the provider').toBeDefined();
    expect(custom?.headers['x-api-key']).toBe('python-forwarded');
    expect(Object.keys(custom?.headers ?? {}).filter((name) => name.startsWith('x-gateway-'))).toEqual([]);
  }, 120_000);
});
