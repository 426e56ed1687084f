/**
 * Records labelled trace pairs for the identifier's detector unit tests: a small reference RAG pair,
 * a handful of golden probes, one round clean and one round under each fault (and mode); for every
 * probe the ProbeResult (real FCS) and both RAGs' traces. Output: JSON lines, one per probe run.
 *
 *   npx tsx services/identifier/scripts/record-trace-pairs.ts [out.jsonl] [packages] [seed]
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { ProbeRunner, defaultThresholds } from '@rag-immune/probing';
import { RagClient, ragClientWithHeaders, callFaultAdmin } from '@rag-immune/rag-contract';
import { endpoints } from '@rag-immune/test-kit/stack';
import { loadQuestions, startReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { FAULT_SCENARIOS, selectProbes } from '@rag-immune/test-kit/identifier/scenarios';

const out = process.argv[2] ?? 'services/identifier/test/fixtures/trace-pairs.jsonl.gz';
const packages = Number(process.argv[3] ?? 25);
const seed = process.argv[4] ?? 'record';
const probeCount = Number(process.argv[5] ?? 12);
const logger = pino({ level: 'warn' });
const rags = await startReferenceRagPair({
  qdrantUrl: endpoints.qdrantUrl,
  qdrantApiKey: endpoints.qdrantApiKey,
  packages,
  label: 'identifier-record',
  logger,
});
try {
  const probes = selectProbes(loadQuestions(), rags.knowledgeIds, probeCount, seed);
  const fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
  const headers = { 'user-agent': 'rag-immune-identifier/record' };
  const runner = new ProbeRunner({
    online: ragClientWithHeaders(rags.onlineUrl, headers, 30_000),
    baseline: ragClientWithHeaders(rags.baselineUrl, headers, 30_000),
    fcs,
    tracer: trace.getTracer('record'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 30_000,
    callAttempts: 2,
    version: 'record',
  });
  const online = new RagClient({ baseUrl: rags.onlineUrl, timeoutMs: 10_000 });
  const baseline = new RagClient({ baseUrl: rags.baselineUrl, timeoutMs: 10_000 });
  const lines: string[] = [];
  const knowledgeIds = [...new Set(probes.map((p) => p.expected_sources[0] as string))];
  for (const scenario of [{ kind: 'clean', mode: 'none', body: () => ({}) }, ...FAULT_SCENARIOS]) {
    if (scenario.kind !== 'clean') await callFaultAdmin(rags.onlineUrl, 'POST', scenario.kind, scenario.body(knowledgeIds, seed));
    try {
      let anomalies = 0;
      for (const probe of probes) {
        const result = await runner.run(probe);
        if (result.anomaly) anomalies += 1;
        const onlineTrace = result.online.trace_id ? await online.trace(result.online.trace_id) : null;
        const baselineTrace = result.baseline.trace_id ? await baseline.trace(result.baseline.trace_id) : null;
        lines.push(
          JSON.stringify({
            kind: scenario.kind,
            mode: scenario.mode,
            probe,
            result,
            online_trace: onlineTrace,
            baseline_trace: baselineTrace,
          }),
        );
      }
      console.log(`${scenario.kind}/${scenario.mode}: ${anomalies}/${probes.length} anomalous`);
    } finally {
      if (scenario.kind !== 'clean') await callFaultAdmin(rags.onlineUrl, 'DELETE', scenario.kind);
    }
  }
  writeFileSync(out, out.endsWith('.gz') ? gzipSync(`${lines.join('\n')}\n`) : `${lines.join('\n')}\n`);
  console.log(`wrote ${lines.length} probe runs to ${out}`);
} finally {
  await rags.close();
}
