/**
 * Issue 15, item 3: probes that can never fire. A probe whose clean-state FCS is already near the
 * floor on both sides (the RAG has nothing that answers it) cannot drop by the threshold, so it
 * looks healthy through any fault. `immune probes validate --rag` and the probe-set builder must
 * reject it at admission, and rotation must retire it; a probe with room to drop must pass.
 *
 * The flat probe is made with FCS v1, here and in the CLI the test runs: v1 puts an off-domain
 * answer at the floor, while v2 (the default) rightly scores it 0.82-0.85, since the RAG's answer
 * does restate the passage it retrieved. The gate under test does not depend on the scorer.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { RagClient } from '@rag-immune/rag-contract';
import { endpoints } from '@rag-immune/test-kit/stack';
import { loadQuestions, startReferenceRagPair, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import {
  ProbeSetBuilder,
  defaultProbeSetOptions,
  defaultRotationOptions,
  defaultThresholds,
  detectability,
  intentCoverage,
  planRotation,
  type GoldenProbe,
} from '@rag-immune/probing';

const cli = fileURLToPath(new URL('../../../../apps/cli/src/main.ts', import.meta.url));
/**
 * Off-domain queries someone might add as probes: nothing in the Debian knowledge answers them, the
 * RAG answers with an unrelated package's summary, FCS sits near the floor on both sides and there
 * is no intent coverage to lose. The one the scorer finds flattest is the test's flat probe.
 */
const FLAT_CANDIDATES = ['best pizza topping', 'who won the 1998 world cup', 'airspeed of a swallow'];
let FLAT_QUERY = '';
let GOOD_QUERY = '';
let GOOD_SOURCE = '';

let rags: ReferenceRagPair;
let fcs: FactConsistencyScorer;

const probe = (id: string, query: string, source: string): GoldenProbe => ({
  id,
  version: 1,
  query,
  expected_sources: [source],
  business_value: 1,
  cluster: 'head',
  created_at: '2026-11-01T00:00:00Z',
  retired_at: null,
});

before(async () => {
  rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: 8,
    label: 'it-flat',
    logger: pino({ level: 'error' }),
  });
  fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1, scorerVersion: 'v1' });
  const good = loadQuestions().find((q) => rags.knowledgeIds.has(q.knowledge_id) && q.kind === 'latest_version');
  assert.ok(good);
  GOOD_QUERY = good.question;
  GOOD_SOURCE = good.knowledge_id;
});

async function cleanSignals(url: string, query: string): Promise<{ fcs: number | null; ic: number | null }> {
  const response = await new RagClient({ baseUrl: url }).query({ query });
  const verdict = await fcs.score({
    question: query,
    evidence: response.chunks.map((c) => ({ id: c.chunk_id, text: c.text })),
    answer: response.answer,
  });
  return { fcs: verdict.score, ic: intentCoverage(query, response.answer, response.abstained ?? false).ic };
}

after(async () => {
  await rags?.close();
});

test('a flat probe exists: on both sides its clean FCS cannot drop by the threshold and it has no IC to lose', async () => {
  const flat: string[] = [];
  for (const query of FLAT_CANDIDATES) {
    const sides = await Promise.all([cleanSignals(rags.onlineUrl, query), cleanSignals(rags.baselineUrl, query)]);
    console.log(`${query}: ${JSON.stringify(sides)}`);
    if (sides.every((signals) => detectability(signals, defaultThresholds).verdict === 'rejected')) flat.push(query);
  }
  assert.ok(flat.length > 0, 'one of the off-domain candidates is flat on both sides');
  FLAT_QUERY = flat[0] as string;
});

test('immune probes validate --rag rejects the probe that can never fire (exit 65) and passes the one that can', async () => {
  assert.ok(FLAT_QUERY, 'a flat probe was found');
  const dir = mkdtempSync(join(tmpdir(), 'flat-probe-'));
  const file = join(dir, 'probes.jsonl');
  writeFileSync(
    file,
    [probe('good-latest-version', GOOD_QUERY, GOOD_SOURCE), probe('off-domain', FLAT_QUERY, GOOD_SOURCE)]
      .map((p) => JSON.stringify(p))
      .join('\n') + '\n',
  );
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'probes', 'validate', file, '--rag', rags.onlineUrl, '--json'], {
    env: { ...process.env, LOG_LEVEL: 'error', FCS_SCORER_VERSION: 'v1' },
  });
  // Asynchronously: the RAG the CLI calls runs in this process's event loop.
  const result = { stdout: '', stderr: '', status: null as number | null };
  child.stdout.on('data', (chunk: Buffer) => (result.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (result.stderr += chunk.toString()));
  result.status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(result.status, 65, `exit ${result.status}: ${result.stdout}${result.stderr}`);
  const verdicts = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{"probe_id"'))
    .map((line) => JSON.parse(line) as { probe_id: string; verdict: string; reason: string });
  const byId = new Map(verdicts.map((v) => [v.probe_id, v]));
  assert.equal(byId.get('off-domain')?.verdict, 'rejected', result.stdout);
  assert.match(byId.get('off-domain')?.reason ?? '', /cannot fire/);
  assert.equal(byId.get('good-latest-version')?.verdict, 'ok', result.stdout);
  assert.match(result.stderr, /1 probe\(s\) can never fire: off-domain/);
});

test('the probe-set builder rejects the flat candidate with the reason', async () => {
  assert.ok(FLAT_QUERY, 'a flat probe was found');
  const builder = new ProbeSetBuilder(
    { embed: () => Promise.resolve([]), rag: new RagClient({ baseUrl: rags.onlineUrl }), fcs },
    { ...defaultProbeSetOptions, size: 2, headShare: 1, fragilityThreshold: 0 },
  );
  const report = await builder.build([
    { query: FLAT_QUERY, count: 100 },
    { query: GOOD_QUERY, count: 50 },
  ]);
  const flat = report.verdicts.find((v) => v.query === FLAT_QUERY);
  assert.equal(flat?.accepted, false, JSON.stringify(report.verdicts));
  assert.equal(flat?.detectability, 'rejected');
  assert.ok(!report.probes.some((p) => p.query === FLAT_QUERY));
});

test('rotation retires a probe whose online FCS never rose high enough to show a drop', () => {
  const flat = probe('flat-probe', 'best pizza topping', 'changelog/acl');
  const lively = probe('lively-probe', 'What is the latest version of acl?', 'changelog/acl');
  // Above the "always broken" bound (0.3), yet a drop of 0.15 from 0.4 can never show.
  const history = new Map([
    [flat.id, [0.36, 0.4, 0.38, 0.41, 0.37, 0.39]],
    [lively.id, [0.9, 0.7, 0.93, 0.85, 0.92, 0.88]],
  ]);
  const decisions = planRotation([flat, lively], history, defaultRotationOptions);
  assert.deepEqual(
    decisions.map((d) => [d.probe.id, d.retire]),
    [
      [flat.id, true],
      [lively.id, false],
    ],
  );
  assert.match(decisions[0]?.reason ?? '', /cannot fire/);
});
