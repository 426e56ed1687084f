/**
 * One bench/traffic/RESULTS.md from several runs' raw records (issue 38's matrix: >= 3 trials of every
 * fault kind at 25 and 200 packages takes 3.5-4.5 hours of the machine, longer than one work session,
 * so it is accumulated run by run). Each DIR is a run directory as bench/traffic/run.ts leaves it:
 * `.runs/bench-traffic-<stamp>/` or its committable copy `bench/traffic/runs/<stamp>/` (--keep-raw).
 * Every run's header is listed, the clean phases of all runs, the per-kind summary over all trials
 * (3 trials of a kind may come from 3 runs), and every trial tagged with its run.
 *
 *   npx tsx bench/traffic/merge.ts --runs DIR[,DIR...] [--out bench/traffic/RESULTS.md] [--allow-mixed]
 *
 * Refuses (naming the file, line and field) a run directory missing run.json, clean.jsonl or
 * trials.jsonl or whose records do not parse, and runs of a different --rag or different golden
 * probes (count or interval) unless --allow-mixed (then the header says they are mixed).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkRunsComparable, readTrafficRun } from '@rag-immune/test-kit/traffic/bench-records';
import { renderTrafficResults } from '@rag-immune/test-kit/traffic/results-report';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string' },
    out: { type: 'string', default: 'bench/traffic/RESULTS.md' },
    'allow-mixed': { type: 'boolean', default: false },
  },
});

try {
  if (args.runs === undefined || args.runs.trim() === '') throw new Error('--runs: give the run directories, comma-separated');
  const runs = args.runs
    .split(',')
    .map((dir) => dir.trim())
    .filter(Boolean)
    .map(readTrafficRun)
    .sort((a, b) => a.header.startedAt.localeCompare(b.header.startedAt));
  const mixed = checkRunsComparable(runs, args['allow-mixed']);
  writeFileSync(args.out, renderTrafficResults(runs, { mixed }));
  console.log(
    `${args.out}: ${runs.length} run(s), ${runs.reduce((s, r) => s + r.clean.length, 0)} clean phase(s), ${runs.reduce((s, r) => s + r.trials.length, 0)} trial(s)`,
  );
} catch (error) {
  console.error(`merge: ${(error as Error).message}`);
  process.exit(1);
}
