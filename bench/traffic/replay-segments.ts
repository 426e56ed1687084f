/**
 * Where the traffic watcher puts each answer, replayed offline on a traffic run's recorded user
 * traces: how often a rewording is resolved by its words (a near match, segment-resolver.ts) or an
 * answer that lost knowledge its wording's healthy context held (a lost companion: it leads a spot
 * check of that knowledge), and whether those
 * fall on the knowledge a trial's fault was placed on (right) or on knowledge no fault touched (a
 * false lead: a spot check spent for nothing).
 *
 *   npx tsx bench/traffic/replay-segments.ts --index bench-traffic-<prefix>-otlp-user-spans --run .runs/bench-traffic-<stamp>
 *
 * The index is the run's (bench/traffic/run.ts leaves its users' spans in the stack's Elasticsearch;
 * its harness.log names the prefix); the run directory gives the trials' targets and times
 * (trials.jsonl). Conservative: no spot check ever clears a pending rewording here, so every near
 * match stays one (the watcher learns a rewording once a check agrees with the baseline). Prints its
 * figures; nothing is written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@elastic/elasticsearch';
import { SegmentResolver, UserTraceReader, retrievalHealth, retrievedKnowledgeIds, topKnowledgeId } from '@rag-immune/sentinel';

const { values: args } = parseArgs({
  options: {
    index: { type: 'string' },
    run: { type: 'string' },
    es: { type: 'string', default: 'http://127.0.0.1:19200' },
  },
});
if (args.index === undefined || args.run === undefined) {
  console.error('usage: replay-segments.ts --index <prefix>-otlp-user-spans --run <run directory with trials.jsonl>');
  process.exit(2);
}

interface TrialWindow {
  target: string;
  affected: string[];
  from: number;
  to: number;
}
/** A trial row as the harness logs it (`.runs/.../trials.jsonl`) or as a kept run keeps it (`bench/traffic/runs/.../trials.jsonl`). */
type TrialLine =
  | { result: { plan: { target: string }; trial: { affectedKnowledgeIds: string[]; injectedAt: number; endedAt: number } } }
  | { target: string; injectedAt: number; seconds: number };
const trials: TrialWindow[] = readFileSync(join(args.run, 'trials.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as TrialLine)
  .map((row) =>
    'result' in row
      ? {
          target: row.result.plan.target,
          affected: row.result.trial.affectedKnowledgeIds,
          from: row.result.trial.injectedAt,
          to: row.result.trial.endedAt,
        }
      : { target: row.target, affected: [row.target], from: row.injectedAt, to: row.injectedAt + row.seconds * 1000 },
  );

const es = new Client({ node: args.es });
const reader = new UserTraceReader(es, {
  index: args.index,
  pageSize: 5000,
  maxPages: 10_000,
  settleMs: 0,
  incompleteWaitMs: 0,
  visibilityMs: 0,
  maxLagMs: Number.MAX_SAFE_INTEGER,
  maxTracesPerPoll: Number.MAX_SAFE_INTEGER,
  startAt: 0,
  now: () => Date.now() + 3_600_000,
});
const polled = await reader.poll();
const answers = polled.answers.sort((a, b) => a.received_at - b.received_at);
const resolver = new SegmentResolver();
const health = retrievalHealth({ scoreDropRatio: 0.8 });

const counts = {
  answers: answers.length,
  inTrials: 0,
  exact: 0,
  near: 0,
  nearOnFaulted: 0,
  nearElsewhereInTrial: 0,
  nearOutsideTrials: 0,
  lost: 0,
  lostOnFaulted: 0,
  lostElsewhereInTrial: 0,
  lostOutsideTrials: 0,
};
const falseLeads = new Map<string, number>();
for (const answer of answers) {
  const trial = trials.find((t) => answer.received_at >= t.from && answer.received_at <= t.to);
  if (trial) counts.inTrials++;
  const retrieved = retrievedKnowledgeIds(answer);
  const usual = resolver.usualKnowledge(answer.trace.query, retrieved);
  const lost = usual?.lostCompanion;
  const reading = await health.read(answer, {
    segment: usual?.knowledgeId ?? topKnowledgeId(answer) ?? 'unknown',
    ...(usual ? { usualKnowledgeId: usual.knowledgeId, usualMatch: usual.match } : {}),
  });
  const top = topKnowledgeId(answer);
  if (usual?.match === 'exact') counts.exact++;
  if (lost !== undefined) {
    counts.lost++;
    if (trial === undefined) counts.lostOutsideTrials++;
    else if (trial.affected.includes(lost)) counts.lostOnFaulted++;
    else counts.lostElsewhereInTrial++;
    if (trial === undefined || !trial.affected.includes(lost)) falseLeads.set(lost, (falseLeads.get(lost) ?? 0) + 1);
  }
  if (usual?.match === 'near') {
    counts.near++;
    if (trial === undefined) counts.nearOutsideTrials++;
    else if (trial.affected.includes(usual.knowledgeId)) counts.nearOnFaulted++;
    else counts.nearElsewhereInTrial++;
    if (trial === undefined || !trial.affected.includes(usual.knowledgeId))
      falseLeads.set(usual.knowledgeId, (falseLeads.get(usual.knowledgeId) ?? 0) + 1);
    if (top !== undefined) resolver.holdPending(answer.trace.query, usual.knowledgeId, top);
  } else if (reading && !reading.bad && top !== undefined)
    resolver.learn(
      answer.trace.query,
      top,
      answer.trace.context.map((c) => c.knowledge_id),
    );
}
await es.close();
console.log(`index ${args.index}, run ${args.run}: ${polled.unreadable} traces unreadable`);
console.log(JSON.stringify(counts));
console.log(`near matches and lost companions on knowledge no fault touched, by id: ${JSON.stringify(Object.fromEntries(falseLeads))}`);
console.log(`trials: ${trials.map((t) => `${t.target} (${t.affected.join(', ')})`).join('; ')}`);
