// What every command group of the CLI shares: the streams it is given, and how its errors end the command
// (CONTRACT §1: exit 2 for a usage error, printed with the group's usage; exit 1, the message alone, for a refusal).

export interface CommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** A command that may read secrets: from stdin, or a hidden prompt when stdin is a terminal. */
export interface CommandIOWithInput extends CommandIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };
}

/** The command was given wrongly: its message is followed by the group's usage, exit 2. */
export class UsageError extends Error {}

/** Runs one command of a group: a usage error (ours, or parseArgs' for an unknown or malformed flag) exits 2 with the usage; any other error exits 1. */
export async function runReportingErrors(usage: string, io: CommandIO, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`${(error as Error).message}\n${usage}\n`);
      return 2;
    }
    io.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
}
