/**
 * A benchmark's `--sentinel-env KEY=VALUE,KEY=VALUE` option: worker variables set over LoopRun's and
 * the RAG pair's (bench/healing, bench/traffic). A value may hold '=' (only the first splits); a
 * value with a comma cannot be passed this way.
 */
export function parseEnvPairs(text: string | undefined, option = '--sentinel-env'): Record<string, string> {
  return Object.fromEntries(
    (text ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`${option}: ${pair} is not KEY=VALUE`);
        const key = pair.slice(0, at);
        if (!/^[A-Z][A-Z0-9_]*$/.test(key)) throw new Error(`${option}: ${key} is not an environment variable name (A-Z, 0-9, _)`);
        return [key, pair.slice(at + 1)];
      }),
  );
}
