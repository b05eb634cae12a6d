// What only a provider that stores responses and files (OpenAI's own Responses API) can honour.
import { invalidRequest, type GatewayError } from '../../core/errors.js';
import { asArray, asRecord } from '../canonical.js';
import { present } from './body-values.js';

/**
 * What only a provider that stores responses and files (OpenAI's own Responses API) can honour, as the
 * 400 to answer when the target is not Responses-native: `previous_response_id`, `conversation`, `background`,
 * a stored `prompt`, `item_reference` items, files and images given by `file_id`, `input_file` and `input_audio`.
 * The integrator calls this before translating; `decodeRequest` keeps these as extensions and never throws them.
 */
export function refusesStatefulFields(json: unknown): GatewayError | undefined {
  const body = asRecord(json);
  const stateless = "send the whole conversation in 'input' instead";
  if (present(body.previous_response_id)) {
    return invalidRequest(`Gatehouse keeps no conversation state: 'previous_response_id' needs a provider that stores responses (OpenAI); ${stateless}`, 'previous_response_id');
  }
  if (present(body.conversation)) {
    return invalidRequest(`Gatehouse keeps no conversation state: 'conversation' needs a provider that stores conversations (OpenAI); ${stateless}`, 'conversation');
  }
  if (body.background === true) {
    return invalidRequest(`Gatehouse keeps no conversation state: 'background' runs a response at OpenAI to be fetched later, which this provider cannot do; send the request with 'stream' instead`, 'background');
  }
  if (present(body.prompt)) {
    return invalidRequest(`'prompt' names a prompt template stored at OpenAI, which this provider cannot read; send the prompt's text in 'instructions' and 'input' instead`, 'prompt');
  }
  const partProblem = (part: unknown, param: string): GatewayError | undefined => {
    const record = asRecord(part);
    if (record.type === 'input_image' && !(typeof record.image_url === 'string' && record.image_url !== '') && present(record.file_id)) {
      return invalidRequest(`'${param}' is an image stored at OpenAI ('file_id'), which this provider cannot read; send it as 'image_url' (an http(s) URL or a data URL) instead`, `${param}.file_id`);
    }
    if (record.type === 'input_file') return invalidRequest(`'${param}': files ('input_file') can only be sent to a provider that speaks the Responses API (OpenAI)`, param);
    if (record.type === 'input_audio') return invalidRequest(`'${param}': audio ('input_audio') can only be sent to a provider that speaks the Responses API (OpenAI)`, param);
    return undefined;
  };
  const input = asArray(body.input);
  for (let i = 0; i < input.length; i++) {
    const item = asRecord(input[i]);
    if (item.type === 'item_reference') {
      return invalidRequest(`Gatehouse keeps no conversation state: 'input[${i}]' refers to an item stored at OpenAI; ${stateless}`, `input[${i}]`);
    }
    const lists: [unknown, string][] = [
      [item.content, `input[${i}].content`],
      [item.output, `input[${i}].output`],
    ];
    for (const [list, path] of lists) {
      const parts = asArray(list);
      for (let j = 0; j < parts.length; j++) {
        const problem = partProblem(parts[j], `${path}[${j}]`);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}

// ───────────────────────────── request: canonical → Responses body ─────────────────────────────
