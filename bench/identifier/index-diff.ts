/**
 * Which cause each data fault is named with, and the index diff the report carries (issue 39 item 4),
 * on the real stack: one reference RAG pair (aliased collections, baseline pinned at start), the
 * identifier worker with its index diff over the pair's two aliases, and every fault of the catalogue
 * the reference RAG can have whose cause is a data cause: the fault-API kinds and modes of the
 * identifier's scenarios named with one (vector-index-corruption, knowledge-source-failure,
 * parser-bug), the operator faults written straight into Qdrant (test kit operator-faults.ts), and
 * one evaluation fault no catalogue cause makes (chunk text edited in place, right answer `unknown`).
 * The reranker, generator, tokenizer and embedder faults change no stored knowledge (bench:identifier
 * measures them); the deploy fault (prompt-regressed) exists on the LangChain RAG only.
 * One trial per kind and mode; writes bench/identifier/INDEX-DIFF.md and index-diff.json.
 *
 *   npx tsx bench/identifier/index-diff.ts [--packages 25] [--probes 10] [--seed bench-index] [--max-rounds 3]
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { ProbeResult, RootCauseReport } from '@rag-immune/contracts';
import { callFaultAdmin, FAULT_CATALOGUE } from '@rag-immune/rag-contract';
import { loadQuestions, startReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { startIdentifierWorker } from '@rag-immune/identifier';
import { FAULT_SCENARIOS, selectProbes } from '@rag-immune/test-kit/identifier/scenarios';
import { ProbeDriver } from '@rag-immune/test-kit/identifier/probe-driver';
import { sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { cleanup, collectReports, identifierEnv, namespace } from '@rag-immune/test-kit/identifier/stack';
import {
  damageVectors,
  editChunkTextInPlace,
  ingestUnpublishedVersion,
  swapDocumentIds,
  type OnlineIndex,
} from '@rag-immune/test-kit/loop/operator-faults';

const { values } = parseArgs({
  options: {
    packages: { type: 'string', default: '25' },
    probes: { type: 'string', default: '10' },
    seed: { type: 'string', default: 'bench-index' },
    'max-rounds': { type: 'string', default: '3' },
    out: { type: 'string', default: 'bench/identifier/index-diff.json' },
    results: { type: 'string', default: 'bench/identifier/INDEX-DIFF.md' },
  },
});
const packages = Number(values.packages);
const seed = values.seed!;
const maxRounds = Number(values['max-rounds']);
const logger = pino({ level: 'error' });
const started = Date.now();
const load = loadavg()[0]!;

/** One fault to run: how it is put in and taken out, and the cause a right report names. */
interface Trial {
  kind: string;
  mode: string;
  expected: string;
  inject(ids: string[]): Promise<string[]>;
  /** Undo: the fault API's DELETE, or a re-ingest of the knowledge an operator fault touched. */
  undo(affected: string[]): Promise<void>;
}

interface Outcome {
  kind: string;
  mode: string;
  expected: string;
  affected: string[];
  anomalies: number;
  report: Pick<RootCauseReport, 'root_cause' | 'affected_component' | 'confidence'> | null;
  open_questions: string[];
  index_diff: RootCauseReport['index_diff'];
}

const pair = await startReferenceRagPair({
  qdrantUrl: endpoints.qdrantUrl,
  qdrantApiKey: endpoints.qdrantApiKey,
  packages,
  label: 'bench-index-diff',
  logger,
  baselinePinnedAt: new Date(),
});
const onlineIndex: OnlineIndex = {
  qdrantUrl: endpoints.qdrantUrl,
  qdrantApiKey: endpoints.qdrantApiKey,
  collection: pair.online.index.collection,
};
const ns = namespace('bench-index-diff');
const { reports, bus } = await collectReports(ns);
const worker = await startIdentifierWorker(
  identifierEnv(
    ns,
    { online: pair.onlineUrl, baseline: pair.baselineUrl },
    {
      IDENTIFIER_QDRANT_URL: endpoints.qdrantUrl,
      ...(endpoints.qdrantApiKey ? { IDENTIFIER_QDRANT_API_KEY: endpoints.qdrantApiKey } : {}),
      IDENTIFIER_ONLINE_COLLECTION: pair.online.index.collection,
      IDENTIFIER_BASELINE_COLLECTION: pair.baseline.index.collection,
      IDENTIFIER_INDEX_PAYLOAD_LAYOUT: 'top',
      IDENTIFIER_BASELINE_PINNED_AS_OF: new Date(started).toISOString(),
    },
  ),
  logger,
);

async function reindex(ids: string[]): Promise<void> {
  const response = await fetch(`${pair.onlineUrl}/repair/reindex`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ knowledge_ids: ids }),
  });
  if (!response.ok) throw new Error(`reindex ${ids.join(',')}: ${response.status} ${await response.text()}`);
}

/** The data faults: scoped by knowledge and named with a data cause (the index is where they show, if anywhere). */
const DATA_CAUSES = new Set([
  'vector_index_corruption',
  'knowledge_source_failure',
  'parser_bug',
  'unpublished_knowledge',
  'wrong_attribution',
]);
const apiTrials: Trial[] = FAULT_SCENARIOS.filter((s) => DATA_CAUSES.has(s.cause)).map((scenario) => ({
  kind: scenario.kind,
  mode: scenario.mode,
  expected: scenario.cause,
  async inject(ids) {
    const body = scenario.body(ids, seed);
    await callFaultAdmin(pair.onlineUrl, 'POST', scenario.kind, body);
    return ((body.scope as { knowledge_ids?: string[] } | undefined)?.knowledge_ids ?? []).slice();
  },
  undo: async () => void (await callFaultAdmin(pair.onlineUrl, 'DELETE', scenario.kind)),
}));
const operatorTrials: Trial[] = [
  {
    kind: 'unpublished-knowledge',
    mode: 'leaked-test-record',
    expected: FAULT_CATALOGUE['unpublished-knowledge'].cause!,
    inject: (ids) => ingestUnpublishedVersion(onlineIndex, ids.slice(0, 2)),
    undo: reindex,
  },
  {
    kind: 'attribution-swap',
    mode: 'swap-ids',
    expected: FAULT_CATALOGUE['attribution-swap'].cause!,
    inject: (ids) => swapDocumentIds(onlineIndex, ids[0]!, ids[1]!),
    undo: reindex,
  },
  ...(['garbage', 'deleted'] as const).map((mode) => ({
    kind: 'vectors-overwritten',
    mode,
    expected: FAULT_CATALOGUE['vectors-overwritten'].cause!,
    inject: (ids: string[]) => damageVectors(onlineIndex, ids.slice(0, 2), mode),
    undo: reindex,
  })),
  {
    kind: 'chunk-text-edited (evaluation: no catalogue cause)',
    mode: 'in-place',
    expected: 'unknown',
    inject: (ids) => editChunkTextInPlace(onlineIndex, ids.slice(0, 2)),
    undo: reindex,
  },
];

const outcomes: Outcome[] = [];
try {
  const probes = selectProbes(loadQuestions(), pair.knowledgeIds, Number(values.probes), seed);
  const driver = await ProbeDriver.create({ online: pair.onlineUrl, baseline: pair.baselineUrl }, probes as never, await bus.publisher());
  const ids = [...new Set(probes.map((p) => p.expected_sources[0]!))];
  const clean = (await driver.round()).filter((r) => r.anomaly).length;
  console.log(`${packages} packages, ${probes.length} probes, ${ids.length} knowledge ids; clean round: ${clean} anomalies`);
  for (const trial of [...apiTrials, ...operatorTrials]) outcomes.push(await run(trial, driver, ids));
} finally {
  await worker.stop();
  await bus.stop();
  await pair.close();
  await cleanup(ns);
}

async function run(trial: Trial, driver: ProbeDriver, ids: string[]): Promise<Outcome> {
  const seen = reports.length;
  const affected = await trial.inject(ids);
  let anomalies = 0;
  let report: RootCauseReport | undefined;
  try {
    for (let round = 0; round < maxRounds && report === undefined; round += 1) {
      const results: ProbeResult[] = await driver.round();
      anomalies += results.filter((r) => r.anomaly).length;
      for (let wait = 0; wait < 30 && report === undefined; wait += 1) {
        // The first report, or a later revision of it while the identifier still decides.
        report = reports.slice(seen).find((r) => r.report_revision === 1);
        if (report === undefined) await sleep(200);
      }
    }
    // A revision within a few seconds (scope grown, findings split) supersedes the first.
    if (report) {
      await sleep(3000);
      report =
        reports
          .slice(seen)
          .filter((r) => r.incident_id === report!.incident_id)
          .at(-1) ?? report;
    }
  } finally {
    await trial.undo(affected);
  }
  for (let round = 0; round < 2; round += 1) {
    await driver.round();
    await sleep(1000);
  }
  const outcome: Outcome = {
    kind: trial.kind,
    mode: trial.mode,
    expected: trial.expected,
    affected,
    anomalies,
    report: report ? { root_cause: report.root_cause, affected_component: report.affected_component, confidence: report.confidence } : null,
    open_questions: report?.open_questions.map((q) => q.kind) ?? [],
    index_diff: report?.index_diff ?? null,
  };
  console.log(
    `${trial.kind}/${trial.mode}: ${anomalies} anomalies, ${report ? `${report.root_cause}/${report.affected_component}` : 'no report'}; ${diffText(outcome.index_diff)}`,
  );
  return outcome;
}

function diffText(diff: RootCauseReport['index_diff']): string {
  if (diff === null) return 'no index diff';
  const counts = (
    [
      ['missing', diff.missing],
      ['added', diff.added_unexpected],
      ['relabelled', diff.relabelled],
      ['payload', diff.payload_changed],
      ['text', diff.text_changed],
      ['vectors moved', diff.vectors_moved],
    ] as const
  )
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`);
  return `${counts.length === 0 ? 'no change' : counts.join(', ')} (${diff.online_points}/${diff.baseline_points} points; ${diff.added_after_pin} newer than the pin)`;
}

const cell = (text: string) => text.replaceAll('|', '\\|');
const rows = outcomes.map((o) => {
  const d = o.index_diff;
  const example = d?.examples.find((e) => e.kind !== 'alias_target_changed');
  const named = o.report ? `${o.report.root_cause} / ${o.report.affected_component} @${o.report.confidence.toFixed(2)}` : 'no report';
  const right = o.report === null ? '-' : o.report.root_cause === o.expected ? 'yes' : 'no';
  return (
    `| ${o.kind} | ${o.mode} | ${o.expected} | ${o.anomalies} | ${named} | ${right} | ${cell(diffText(d))} | ` +
    `${d ? d.explained_by.join(', ') || '-' : '-'} | ${d ? d.unexplained.join(', ') || '-' : '-'} | ` +
    `${example ? cell(`${example.kind} ${example.chunk} ${example.field}: ${example.before ?? '-'} → ${example.after ?? '-'}`) : '-'} | ${o.open_questions.join(', ') || '-'} |`
  );
});
const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${load.toFixed(2)} at start`;
const command = `npx tsx bench/identifier/index-diff.ts --packages ${packages} --probes ${values.probes} --seed ${seed} --max-rounds ${maxRounds}`;
const reported = outcomes.filter((o) => o.report !== null);
const markdown = [
  '# Identifier: the cause each data fault is named with, and the index diff the report carries',
  '',
  `Written by \`bench/identifier/index-diff.ts\` on ${new Date().toISOString()} (${((Date.now() - started) / 60_000).toFixed(1)} min).`,
  `Machine: ${machine}. Command: \`${command}\`.`,
  `One trial per kind and mode (${packages} packages, ${values.probes} probes, up to ${maxRounds} probe rounds per fault): a table of what is named, not an accuracy figure.`,
  "The reference RAG pair queries aliased collections; the identifier diffs the online alias against the baseline's for the knowledge the data causes implicate.",
  'Data faults only: the reranker, generator, tokenizer and embedder faults change no stored knowledge (`npm run bench:identifier` measures their naming); the deploy fault (prompt-regressed) exists on the LangChain RAG only.',
  'No timing is measured here: it ran under a shared bench lock beside other benchmarks, with the stack to itself (stack lock).',
  '',
  '| fault | mode | right cause | anomalies | named (cause / component @confidence) | right | index diff carried | fits | no cause explains | an example | open questions |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows,
  '',
  `${reported.filter((o) => o.report!.root_cause === o.expected).length} of ${reported.length} reports name the right cause (${outcomes.length} faults run, ${outcomes.length - reported.length} without a report); ` +
    `${reported.filter((o) => o.index_diff !== null).length} reports carry an index diff.`,
  '',
].join('\n');
writeFileSync(values.results!, markdown);
writeFileSync(values.out!, `${JSON.stringify({ machine, command, packages, seed, outcomes }, null, 2)}\n`);
console.log(`\n${markdown}`);
process.exit(0);
