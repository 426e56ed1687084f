/**
 * One bench/traffic/RESULTS.md from several runs' raw records (issue 38's matrix: >= 3 trials of every
 * fault kind at 25 and 200 packages takes 3.5-4.5 hours of the machine, longer than one work session,
 * so it is accumulated run by run). Each DIR is a run directory as bench/traffic/run.ts leaves it:
 * `.runs/bench-traffic-<stamp>/` or its committable copy `bench/traffic/runs/<stamp>/` (--keep-raw).
 * Every run's header is listed, the clean phases of all runs, the per-kind summary over all trials
 * (3 trials of a kind may come from 3 runs), and every trial tagged with its run.
 *
 *   npx tsx bench/traffic/merge.ts (--runs DIR[,DIR...] | --runs-dir DIR) [--rag reference|langchain]
 *                                  [--out bench/traffic/RESULTS.md] [--allow-mixed]
 *
 * --runs-dir takes every run directory under DIR (those holding a run.json), --rag keeps the runs of
 * one RAG (a matrix per RAG: the two answer at different rates and have different faults).
 * `npm run bench:traffic:merge` renders RESULTS.md (reference RAG) and RESULTS-langchain.md from the
 * committed bench/traffic/runs/; the RESULTS.md then names that command and every run's own command,
 * which unit bench-scripts checks against the kept run.json files.
 *
 * Refuses (naming the file, line and field) a run directory missing run.json, clean.jsonl or
 * trials.jsonl or whose records do not parse, and runs of a different --rag or different golden
 * probes (count or interval) unless --allow-mixed (then the header says they are mixed).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runDirectories } from '@rag-immune/test-kit/run-directories';
import { checkRunsComparable, readTrafficRun } from '@rag-immune/test-kit/traffic/bench-records';
import { renderTrafficResults } from '@rag-immune/test-kit/traffic/results-report';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string' },
    'runs-dir': { type: 'string' },
    rag: { type: 'string' },
    out: { type: 'string', default: 'bench/traffic/RESULTS.md' },
    'allow-mixed': { type: 'boolean', default: false },
  },
});

try {
  if (args.rag !== undefined && args.rag !== 'reference' && args.rag !== 'langchain')
    throw new Error(`--rag: reference or langchain, not ${args.rag}`);
  const runsDir = args['runs-dir'];
  const dirs = runDirectories(args.runs, runsDir);
  const runs = dirs
    .map(readTrafficRun)
    .filter((run) => args.rag === undefined || run.header.rag === args.rag)
    .sort((a, b) => a.header.startedAt.localeCompare(b.header.startedAt));
  if (runs.length === 0) throw new Error(`no runs${args.rag ? ` of the ${args.rag} RAG` : ''} in ${dirs.join(', ') || runsDir}`);
  const mixed = checkRunsComparable(runs, args['allow-mixed']);
  const mergeCommand = ['bench/traffic/merge.ts', ...process.argv.slice(2)].join(' ');
  writeFileSync(args.out, renderTrafficResults(runs, { mixed, mergeCommand }));
  console.log(
    `${args.out}: ${runs.length} run(s), ${runs.reduce((s, r) => s + r.clean.length, 0)} clean phase(s), ${runs.reduce((s, r) => s + r.trials.length, 0)} trial(s)`,
  );
} catch (error) {
  console.error(`merge: ${(error as Error).message}`);
  process.exit(1);
}
