/** Writes one result: a JSON line with --json (for scripts), else the human rendering. */
export function emit(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}
