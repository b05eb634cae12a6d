// Token counts with bounded work. The BPE tokenizers (gpt-tokenizer) are quadratic in the length of one
// pre-tokenized piece: one run of 160k letters took 14 s, and 250k overflowed the stack. So every text
// is cut into runs of at most LONG_RUN characters before it is encoded (a few tokens of difference on
// a long word or a blob, none on ordinary prose), and the amount counted is bounded too:
// - counts run on a worker thread, never on the serving thread: loading a vocabulary alone takes about
//   a second, and an adversarial text of a few KB tens of ms. Only paths that count pay the hop
//   (count_tokens answered by the gateway, the context check of a prompt that may not fit), well
//   under a ms; ordinary calls never count.
// - the thread counts slice by slice until a deadline and reports what it counted; the rest is
//   extrapolated from that sample. Only a sample (SAMPLE_CHARS) is sent at all.
// - a thread that does not answer in time (the machine swamped) leaves a plain guess of
//   CHARS_PER_TOKEN characters a token, marked as such so the context checks do not refuse on it.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export type Encoding = 'o200k_base' | 'cl100k_base';

export interface TokenCount {
  tokens: number;
  /** `counted`: every character encoded; `sampled`: a prefix encoded, the rest extrapolated; `guessed`: by length only. */
  basis: 'counted' | 'sampled' | 'guessed';
}

/** Letters, digits or spaces in one run past this are encoded in pieces of this size. */
export const LONG_RUN = 32;
/** At most this much text is handed to the counting thread; the rest is extrapolated. */
export const SAMPLE_CHARS = 1024 * 1024;
/** How long the counting thread counts one request before it reports what it has. */
export const COUNT_BUDGET_MS = 250;
/** Past this the request stops waiting for the counting thread and takes the guess. */
export const COUNT_DEADLINE_MS = 600;
/** The same while the thread still loads the vocabulary (about a second, once per encoding). */
export const STARTUP_DEADLINE_MS = 5_000;
/** o200k's and cl100k's average on English prose and code; the guess only. */
const CHARS_PER_TOKEN = 4;
/** The worker checks its deadline between slices of this size (about 40 ms of the slowest text). */
const SLICE_CHARS = 16 * 1024;

// `countText(encode, text)`: cuts long runs and sums the pieces' tokens.
const COUNT_TEXT_SOURCE = `
  const longRun = new RegExp('\\\\S{${LONG_RUN}}|\\\\s{${LONG_RUN}}', 'g');
  let tokens = 0;
  let last = 0;
  longRun.lastIndex = 0;
  for (let match = longRun.exec(text); match; match = longRun.exec(text)) {
    if (match.index > last) tokens += encode(text.slice(last, match.index)).length;
    tokens += encode(match[0]).length;
    last = longRun.lastIndex;
  }
  if (last < text.length) tokens += encode(last === 0 ? text : text.slice(last)).length;
  return tokens;
`;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const encoders = {};
function countText(encode, text) {${COUNT_TEXT_SOURCE}}
const loadedAt = {};
parentPort.on('message', ({ id, encoding, texts, postedAt, abandonAt }) => {
  // Queued behind others until its asker stopped waiting: nothing left to count for.
  if (Date.now() >= abandonAt) return parentPort.postMessage({ id, encoding, tokens: 0, counted: 0 });
  if (!encoders[encoding]) {
    encoders[encoding] = require(workerData.modules[encoding]).encode;
    loadedAt[encoding] = Date.now();
  }
  const encode = encoders[encoding];
  // A count asked for while the vocabulary loaded gets its whole budget once it is there.
  const deadlineAt = Math.max(postedAt, loadedAt[encoding]) + ${COUNT_BUDGET_MS};
  let tokens = 0;
  let counted = 0;
  // At least one slice, so a late start still yields a sample to extrapolate from.
  outer: for (const text of texts) {
    for (let at = 0; at < text.length; at += ${SLICE_CHARS}) {
      if (counted > 0 && Date.now() >= deadlineAt) break outer;
      const slice = text.slice(at, at + ${SLICE_CHARS});
      tokens += countText(encode, slice);
      counted += slice.length;
    }
  }
  parentPort.postMessage({ id, encoding, tokens, counted });
});
`;

const moduleOf = (encoding: Encoding) => `gpt-tokenizer/encoding/${encoding}`;

interface WorkerReply {
  id: number;
  tokens: number;
  counted: number;
}

/** The counting thread: started with the first large count, kept (unref'd) for the next, replaced if it fails. */
class CountingThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly waiting = new Map<number, (reply: WorkerReply | null) => void>();
  /** Encodings the thread has answered with, so loaded already. */
  private readonly loaded = new Set<Encoding>();

  count(encoding: Encoding, texts: string[]): Promise<WorkerReply | null> {
    const worker = this.started();
    const id = ++this.nextId;
    return new Promise((resolve) => {
      const deadlineMs = this.loaded.has(encoding) ? COUNT_DEADLINE_MS : STARTUP_DEADLINE_MS;
      const timer = setTimeout(() => finish(null), deadlineMs);
      timer.unref();
      const finish = (reply: WorkerReply | null) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(reply);
      };
      this.waiting.set(id, finish);
      const postedAt = Date.now();
      worker.postMessage({ id, encoding, texts, postedAt, abandonAt: postedAt + deadlineMs });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const require = createRequire(import.meta.url);
    const modules = { o200k_base: require.resolve(moduleOf('o200k_base')), cl100k_base: require.resolve(moduleOf('cl100k_base')) };
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modules } });
    worker.on('message', (reply: WorkerReply & { encoding: Encoding }) => {
      this.loaded.add(reply.encoding);
      this.waiting.get(reply.id)?.(reply);
    });
    const lost = () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.loaded.clear();
      for (const finish of [...this.waiting.values()]) finish(null);
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    // Never keeps the process alive: a stop (SIGTERM) does not wait for a count. After the listeners,
    // which would otherwise take a reference on the thread's port again.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

const countingThread = new CountingThread();

/** Up to `limit` characters of `texts`, in order: what the counting thread is given. */
function sampleOf(texts: readonly string[], limit: number): string[] {
  const sample: string[] = [];
  let left = limit;
  for (const text of texts) {
    if (left <= 0) break;
    sample.push(text.length <= left ? text : text.slice(0, left));
    left -= text.length;
  }
  return sample;
}

/** The tokens of `texts` (each encoded on its own) by `encoding`, counted off the serving thread with a deadline. */
export async function countTokens(encoding: Encoding, texts: readonly string[]): Promise<TokenCount> {
  let chars = 0;
  for (const text of texts) chars += text.length;
  if (chars === 0) return { tokens: 0, basis: 'counted' };
  const reply = await countingThread.count(encoding, sampleOf(texts, SAMPLE_CHARS));
  if (!reply || reply.counted === 0) return { tokens: Math.ceil(chars / CHARS_PER_TOKEN), basis: 'guessed' };
  if (reply.counted >= chars) return { tokens: reply.tokens, basis: 'counted' };
  return { tokens: Math.round((reply.tokens * chars) / reply.counted), basis: 'sampled' };
}
