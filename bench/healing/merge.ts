/**
 * One bench/healing results page from several runs' kept records (issue 39's LangChain matrix: 3
 * trials of six kinds and three compound pairs, minutes of Gemma each, takes longer than one work
 * session, so it is accumulated run by run with `bench/healing/run.ts --keep-raw bench/healing/runs`).
 * Every run's command, commit and machine are listed, the clean phases added together, each kind's
 * trials counted over all runs, and every trial tagged with its run.
 *
 *   npx tsx bench/healing/merge.ts (--runs DIR[,DIR...] | --runs-dir DIR) --rag reference|langchain --out FILE
 *
 * Refuses (naming the file, line and field) a run directory whose run.json or trials.jsonl is missing
 * or does not parse, and runs with different golden probes (count, interval, samples, packages)
 * unless --allow-mixed (then the page says so).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runDirectories } from '@rag-immune/test-kit/run-directories';
import { readHealingRun, type HealingRun } from '@rag-immune/test-kit/loop/healing-records';
import { renderHealingResults } from '@rag-immune/test-kit/loop/healing-report';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string' },
    'runs-dir': { type: 'string' },
    rag: { type: 'string' },
    out: { type: 'string' },
    'allow-mixed': { type: 'boolean', default: false },
  },
});

/** What must match for runs' trials to be counted in one matrix. */
const setup = (run: HealingRun) =>
  `${run.header.packages} packages, ${run.header.probes} probes every ${run.header.interval} s${run.header.samples === undefined ? '' : `, ${run.header.samples} samples a side at alpha ${run.header.alpha}`}`;

try {
  if (args.rag !== 'reference' && args.rag !== 'langchain') throw new Error(`--rag: reference or langchain, not ${String(args.rag)}`);
  if (args.out === undefined) throw new Error('--out: the page to write (e.g. bench/healing/RESULTS-langchain.md)');
  const runsDir = args['runs-dir'];
  const dirs = runDirectories(args.runs, runsDir);
  const runs = dirs
    .map(readHealingRun)
    .filter((run) => run.header.rag === args.rag)
    .sort((a, b) => a.header.startedAt.localeCompare(b.header.startedAt));
  if (runs.length === 0) throw new Error(`no runs of the ${args.rag} RAG in ${dirs.join(', ') || runsDir}`);
  const setups = [...new Set(runs.map(setup))];
  if (setups.length > 1 && !args['allow-mixed'])
    throw new Error(`the runs differ in their probes (${setups.join('; ')}): merge like with like, or pass --allow-mixed`);
  const mergeCommand = ['bench/healing/merge.ts', ...process.argv.slice(2)].join(' ');
  const page = renderHealingResults(runs, { mergeCommand });
  writeFileSync(
    args.out,
    setups.length > 1 ? page.replace('\n\n', `\n\n**Mixed setups** (--allow-mixed): ${setups.join('; ')}.\n\n`) : page,
  );
  console.log(
    `${args.out}: ${runs.length} run(s), ${runs.reduce((s, r) => s + r.trials.length, 0)} trial(s), ${runs.reduce((s, r) => s + r.compounds.length, 0)} compound trial(s)`,
  );
} catch (error) {
  console.error(`merge: ${(error as Error).message}`);
  process.exit(1);
}
