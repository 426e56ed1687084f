/** sysexits(3)-style exit codes, so scripts can tell a usage error from an unreachable server. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 64,
  dataError: 65,
  noInput: 66,
  unavailable: 69,
  /** Authentication refused (a missing or wrong API token). */
  noPermission: 77,
  config: 78,
} as const;

/** An error the CLI reports as one line on stderr with a chosen exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
