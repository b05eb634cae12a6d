// Reads what a client received (an OpenAI-format JSON answer or SSE stream) back into the figures the
// log keeps: tokens and the assembled text. Runs when log rows are written, never on the request path.

export interface ResponseSummary {
  promptTokens: number | null;
  completionTokens: number | null;
  /** The generated text, streams assembled (first choice). */
  text: string | null;
}

interface ChoiceLike {
  index?: number;
  text?: string;
  delta?: { content?: string | null };
  message?: { content?: string | null };
}

interface AnswerLike {
  choices?: ChoiceLike[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

function choiceText(choice: ChoiceLike): string {
  return choice.text ?? choice.delta?.content ?? choice.message?.content ?? '';
}

export function summarizeOpenAIResponse(body: string, stream: boolean): ResponseSummary {
  const summary: ResponseSummary = { promptTokens: null, completionTokens: null, text: null };
  const take = (answer: AnswerLike) => {
    if (answer.usage) {
      summary.promptTokens = answer.usage.prompt_tokens ?? summary.promptTokens;
      summary.completionTokens = answer.usage.completion_tokens ?? summary.completionTokens;
    }
    for (const choice of answer.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      summary.text = (summary.text ?? '') + choiceText(choice);
    }
  };
  if (!stream) {
    try {
      take(JSON.parse(body) as AnswerLike);
    } catch {
      // A body that is not JSON has nothing to count.
    }
    return summary;
  }
  for (const line of body.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (!data || data === '[DONE]') continue;
    try {
      take(JSON.parse(data) as AnswerLike);
    } catch {
      // A line cut by the capture limit is skipped.
    }
  }
  return summary;
}
