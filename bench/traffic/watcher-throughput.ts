/**
 * The traffic watcher's own cost per traced answer, on this machine: span sets as the reference RAG
 * exports them (root chain, retriever with 8 documents, LLM) mapped to answers, judged by every
 * signal but FCS, segmented and fed to the detectors (reading from Elasticsearch not included:
 * see the reader's integration test); then FCS against its own context on a few answers, to size
 * TRAFFIC_FCS_SHARE; then the whole watcher with FCS on a share of answers (the sentinel's default
 * TRAFFIC_FCS_SHARE 0.1, and 0.05): the answers per second it sustains with the scorer in the loop.
 * Prints figures and writes them to bench/traffic/RESULTS-throughput.md (machine, load, command); asserts nothing.
 *
 *   npx tsx bench/traffic/watcher-throughput.ts [answers=20000] [fcsAnswers=20] [sharedAnswers=2000]
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { Registry } from 'prom-client';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import type { Attributes, SpanRecord } from '@rag-immune/traces';
import {
  DriftMonitor,
  SegmentResolver,
  ShadowReplay,
  citationCheck,
  fcsAgainstContext,
  retrievalHealth,
  TrafficMetrics,
  TrafficWatcher,
  toUserAnswer,
  type UserAnswer,
  type AnswerSignal,
} from '@rag-immune/sentinel';

const answers = Number(process.argv[2] ?? 20_000);
const fcsAnswers = Number(process.argv[3] ?? 20);
const sharedAnswers = Number(process.argv[4] ?? 2_000);
const startLoad = loadavg();
const rows: string[] = [];
const hex = (n: number) => randomBytes(n).toString('hex');

function spans(i: number): SpanRecord[] {
  const traceId = hex(16);
  const k = `pkg-${i % 200}`;
  const span = (kind: string, attributes: Attributes, parent: string | null): SpanRecord => ({
    trace_id: traceId,
    span_id: hex(8),
    parent_span_id: parent,
    name: kind.toLowerCase(),
    kind: 'internal',
    start_ms: 1_800_000_000_000 + i,
    end_ms: 1_800_000_000_020 + i,
    status: 'ok',
    attributes: { 'openinference.span.kind': kind, ...attributes },
    dropped_attributes_count: 0,
    events: [],
    resource: { 'service.name': 'reference-rag-online' },
    scope: { name: 'bench', version: '' },
  });
  const docs: Attributes = {};
  for (let d = 0; d < 8; d++) {
    const id = `${k}#${d}`;
    docs[`retrieval.documents.${d}.document.id`] = id;
    docs[`retrieval.documents.${d}.document.score`] = 0.8 - d * 0.02;
    docs[`retrieval.documents.${d}.document.content`] =
      `${k} chunk ${d}: version 1.${d} was released with fixes for the parser and the build.`;
    docs[`retrieval.documents.${d}.document.metadata`] = JSON.stringify({
      doc_id: k,
      chunk_id: id,
      knowledge_id: k,
      version: '1.0',
      source: 'debian',
      source_trust: 1,
      updated_at: '2026-11-01T00:00:00Z',
      valid_from: '2026-11-01T00:00:00Z',
      valid_until: null,
    });
  }
  const question = `what version of ${k} is in the archive (${i % 7})`;
  const answer = `${k} is at version 1.0 in the archive.`;
  const root = span('CHAIN', { 'input.value': question, 'output.value': answer, 'rag_immune.citations': `["${k}#0"]` }, null);
  return [
    root,
    span('RETRIEVER', { 'input.value': question, ...docs }, root.span_id),
    span('LLM', { 'llm.model_name': 'extractive', 'llm.output_messages.0.message.content': answer }, root.span_id),
  ];
}

const sets = Array.from({ length: answers }, (_, i) => spans(i));
const noReplay = new ShadowReplay(
  { run: () => Promise.reject(new Error('no replay in the bench')) },
  () => Promise.resolve(),
  { perSegment: 0, perIncident: 0, incidentWindowMs: 60_000, perHour: 0 },
  0.5,
);
const monitor = () =>
  new DriftMonitor({
    profileAnswers: 30,
    priorWeight: 20,
    minCleanRate: 0.005,
    confidenceZ: 1.645,
    shift: 0.3,
    answersPerDay: 1e5,
    alarmsPerDay: 1,
    cooldownMs: 600_000,
  });

async function measure(label: string, list: SpanRecord[][], signals: readonly AnswerSignal[]) {
  let served = false;
  const startCpu = process.cpuUsage();
  const started = performance.now();
  const mapped: UserAnswer[] = list.map((s, i) => toUserAnswer(s[0]!.trace_id, s, i)!);
  const source = { poll: () => Promise.resolve({ answers: served ? [] : ((served = true), mapped), skipped: 0, unreadable: 0 }) };
  const watcher = new TrafficWatcher(source, signals, monitor(), new SegmentResolver(), noReplay, new TrafficMetrics(new Registry()), {
    pollMs: 1000,
    scoreDropRatio: 0.8,
    queriesKept: 10,
  });
  await watcher.tick();
  const wall = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(startCpu);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `${label}: ${list.length} answers in ${wall.toFixed(2)} s wall = ${(list.length / wall).toFixed(0)} answers/s; CPU ${(cpuMs / list.length).toFixed(3)} ms per answer`,
  );
  rows.push(
    `| ${label} | ${list.length} | ${wall.toFixed(2)} | **${(list.length / wall).toFixed(0)}** | ${(cpuMs / list.length).toFixed(3)} |`,
  );
}

await measure('map + judge, FCS off', sets, [retrievalHealth({ scoreDropRatio: 0.8 }), citationCheck()]);
const fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
await measure('map + judge, FCS on every answer', sets.slice(0, fcsAnswers), [
  retrievalHealth({ scoreDropRatio: 0.8 }),
  citationCheck(),
  fcsAgainstContext({ fcs, minScore: 0.3, share: 1 }),
]);
// The scorer in the loop at a share: its own random draw decides which answers are scored, as in the sentinel.
for (const share of [0.1, 0.05])
  await measure(`map + judge, FCS on a share of ${share} of answers`, sets.slice(0, sharedAnswers), [
    retrievalHealth({ scoreDropRatio: 0.8 }),
    citationCheck(),
    fcsAgainstContext({ fcs, minScore: 0.3, share }),
  ]);

const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
writeFileSync(
  'bench/traffic/RESULTS-throughput.md',
  `# The traffic watcher's cost per traced answer (issue 38)

\`npx tsx bench/traffic/watcher-throughput.ts ${process.argv.slice(2).join(' ')}\` (the command as run; \`bench/traffic/watcher-throughput.ts\`).

Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB,
Node ${process.version}; load average (1/5/15 min) ${load(startLoad)} at the start, ${load(loadavg())} at the end. One process, the
FCS scorer on one intra-op thread (the sentinel's setting). Span sets as the reference RAG exports them (a root chain, a
retriever span with 8 documents and their versioned metadata, an LLM span) for 200 knowledge ids, mapped to user answers,
judged, segmented and fed to the change detectors in one watcher tick; reading them from Elasticsearch is not included
(the reader's integration test covers it). FCS scores each answer against its own retrieved context.

| configuration | answers | wall s | answers / s | CPU ms / answer |
| --- | --- | --- | --- | --- |
${rows.join('\n')}
`,
);
console.log('written bench/traffic/RESULTS-throughput.md');
