/**
 * The run directories a bench merge reads (bench/traffic/merge.ts, bench/healing/merge.ts): those given
 * with `--runs` (comma-separated) and every directory under `--runs-dir` that holds a run.json.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function runDirectories(runs: string | undefined, runsDir: string | undefined): string[] {
  const given = runs?.trim() ? runs.split(',') : [];
  if (given.length === 0 && runsDir === undefined)
    throw new Error('--runs (the run directories, comma-separated) or --runs-dir: give the runs to merge');
  if (runsDir !== undefined && !existsSync(runsDir)) throw new Error(`--runs-dir: ${runsDir} does not exist`);
  return [
    ...given.map((dir) => dir.trim()).filter(Boolean),
    ...(runsDir === undefined
      ? []
      : readdirSync(runsDir, { withFileTypes: true })
          .filter((entry) => entry.isDirectory() && existsSync(join(runsDir, entry.name, 'run.json')))
          .map((entry) => join(runsDir, entry.name))),
  ];
}
