// Runs one `gatehouse …` command in this process, as a second terminal would: stdin is what a pipe
// would hold, stdout and stderr are collected whole. Faster than spawning and sees the same code.
import { PassThrough, Readable } from 'node:stream';
import type { CommandIOWithInput } from '../../src-main/cli/command.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runInProcess(
  command: (args: string[], io: CommandIOWithInput) => Promise<number>,
  args: string[],
  { stdin = '', env = {} }: { stdin?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await command(args, { stdin: Readable.from([stdin]), stdout, stderr, env });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}
