/**
 * The probe-set rotation on real parts (issue 38 item 4): the reference RAG pair exporting its
 * spans over OTLP to the real trace intake (a process), which keeps the users' spans, redacted, in
 * the real Elasticsearch; simulated users from the test kit's traffic generator (Zipf popularity,
 * some questions carrying personal data); the rotation's real ports reading those spans, asking the
 * online RAG's GET /knowledge/{id} and vetting candidates with the real probe-set builder and FCS
 * model against the frozen baseline. Only the probes' FCS history is given (empty: the probes topic
 * is shared by every test on this stack and reading it whole is the CLI's `probes rotate` job).
 * The proposal retires the probe whose source is gone, offers the traffic's uncovered clusters,
 * changes nothing until `immune probes accept` (the CLI against the sentinel's routes, with a token
 * that has the operate role) applies it to the probe file; no personal data reaches the proposal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { Client } from '@elastic/elasticsearch';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { formatProbeFile, parseProbeFile, type GoldenProbe } from '@rag-immune/probing';
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { loadQuestions, startReferenceRagPair, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { ManagedProcess, freePort, logMessage, sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { TrafficGenerator } from '@rag-immune/test-kit/traffic/traffic-generator';
import { UserQueryMix } from '@rag-immune/test-kit/traffic/user-queries';
import { sentinelHttpApp } from '../../src/http/routes.ts';
import type { Sentinel } from '../../src/sentinel.ts';
import { rotationConfigFromEnv } from '../../src/rotation/config.ts';
import { ProbeRotation } from '../../src/rotation/probe-rotation.ts';
import { ProposalStore } from '../../src/rotation/proposal.ts';
import { proposalFile, rotationOptions, rotationPorts } from '../../src/rotation/rotation-module.ts';
import { rotationRoutes } from '../../src/rotation/rotation-routes.ts';
import { trafficConfigFromEnv } from '../../src/traffic/config.ts';

const run = randomUUID().slice(0, 8);
const prefix = `it-rotation-${run}`;
const logger = pino({ level: 'warn' });
const es = new Client({ node: endpoints.elasticsearchUrl });
const dir = mkdtempSync(join(tmpdir(), 'probe-rotation-'));
const probesFile = join(dir, 'golden-probes.jsonl');
const OPERATOR = 'operator-token-0123456789abcdef';
const immuneBin = fileURLToPath(new URL('../../../../apps/cli/bin/immune.js', import.meta.url));

let intake: ManagedProcess;
let rags: ReferenceRagPair;
let server: ReturnType<ReturnType<typeof sentinelHttpApp>['listen']> | undefined;

before(async () => {
  const intakePort = await freePort();
  intake = new ManagedProcess({
    name: 'trace-intake',
    entry: 'services/trace-intake/src/main.ts',
    env: {
      ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
      ES_INDEX_PREFIX: prefix,
      TRACE_INTAKE_HOST: '127.0.0.1',
      TRACE_INTAKE_PORT: String(intakePort),
      LOG_LEVEL: 'info',
    },
    logFile: join(dir, 'trace-intake.log'),
    ready: logMessage('trace intake listening'),
    healthPort: () => intakePort,
    startTimeoutMs: 120_000,
  });
  await intake.start();
  rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: 25,
    label: `it-rotation-${run}`,
    logger,
    otlpTracesUrl: `http://127.0.0.1:${intakePort}/v1/traces`,
  });
});

after(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await rags?.close();
  await intake?.stop();
  await es.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
  await es.close();
});

function immune(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [immuneBin, ...args], { env: { ...process.env, IMMUNE_API_TOKEN: OPERATOR } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const probe = (id: string, query: string, source: string): GoldenProbe => ({
  id,
  version: 1,
  query,
  expected_sources: [source],
  business_value: 1,
  cluster: 'head',
  created_at: '2026-01-01T00:00:00Z',
  retired_at: null,
});

test('a rotation proposal built from recorded user traffic retires a gone source, offers uncovered clusters, and applies only when accepted', async (t) => {
  const t0 = Date.now();
  const phase = (name: string) => t.diagnostic(`${name} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // Simulated users: popular questions asked often, a fifth of them carrying personal data.
  const questions = loadQuestions().filter((q) => rags.knowledgeIds.has(q.knowledge_id));
  const report = await new TrafficGenerator({
    mix: new UserQueryMix(questions, { zipfExponent: 1.2, paraphraseShare: 0, outOfKnowledgeShare: 0.05, personalDataShare: 0.2, seed: 7 }),
    url: rags.onlineUrl,
    rate: 30,
    maxRequests: 80,
    maxDurationMs: 60_000,
  }).run();
  assert.ok(report.answered >= 72, `answered ${report.answered} of ${report.requests.length}`);
  phase('traffic sent');
  const byAsks = [...report.asked.entries()].sort((a, b) => b[1] - a[1]);
  const [covered] = byAsks[0]!;
  const others = byAsks.slice(-2).map(([id]) => id);
  // The probe set: one on the most asked knowledge (so it is no candidate), one whose source no longer exists.
  const question = (id: string) => questions.find((q) => q.knowledge_id === id)!.question;
  writeFileSync(
    probesFile,
    formatProbeFile([
      probe('covers-top', question(covered), covered),
      probe('source-gone', 'which version of libfrobnicate is packaged?', `pkg-gone-${run}`),
      ...others.map((id, i) => probe(`other-${i}`, question(id), id)),
    ]),
  );
  // Wait until the intake has stored the users' spans: the count has stopped growing.
  const userIndex = `${prefix}-otlp-user-spans`;
  const deadline = Date.now() + 60_000;
  let last = -1;
  for (;;) {
    await es.indices.refresh({ index: userIndex }).catch(() => undefined);
    const stored = (await es.count({ index: userIndex }).catch(() => ({ count: 0 }))).count;
    if ((stored >= report.answered * 2 && stored === last) || Date.now() > deadline) break;
    last = stored;
    await sleep(1500);
  }
  phase('spans stored');
  const config = rotationConfigFromEnv({
    PROBE_ROTATION: '1',
    ROTATION_MIN_ASKS: '2',
    ROTATION_MAX_ADD_FREQUENT: '1',
    ROTATION_MAX_ADD_FRAGILE: '1',
    ROTATION_MAX_RETIRE_SHARE: '0.5',
    ROTATION_BUILDER_RUNS: '3',
    SENTINEL_API_TOKENS: `operator:${OPERATOR},viewer:viewer-token-0123456789abcdef`,
    SENTINEL_API_ROLES: 'operator=read+operate,viewer=read',
  });
  const traffic = trafficConfigFromEnv({
    TRAFFIC_WATCH: '1',
    ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
    ES_INDEX_PREFIX: prefix,
    TRAFFIC_SETTLE_MS: '1000',
    TRAFFIC_VISIBILITY_MS: '500',
  });
  const fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
  const headers = { 'user-agent': 'rag-immune-sentinel/test' };
  const ports = rotationPorts(config, traffic, {
    probesFile,
    bus: undefined as never,
    online: ragClientWithHeaders(rags.onlineUrl, headers, 30_000),
    baseline: ragClientWithHeaders(rags.baselineUrl, headers, 30_000),
    fcs,
    logger,
  });
  const rotation = new ProbeRotation(
    { ...ports, history: async () => ({ fcs: new Map(), flaggedSegments: new Set() }) },
    new ProposalStore(proposalFile(config, probesFile)),
    rotationOptions(config),
    logger,
  );
  const sentinel = { isStarted: true, probeStatus: () => [] } as unknown as Sentinel;
  server = sentinelHttpApp(sentinel, {
    registry: new Registry(),
    logger,
    host: '127.0.0.1',
    apiToken: undefined,
    tokens: config.SENTINEL_API_TOKENS!,
    extraRoutes: rotationRoutes(rotation, config.SENTINEL_API_ROLES ?? null),
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server!.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const before = readFileSync(probesFile, 'utf8');
  phase('models loaded');
  const check = await rotation.tick();
  phase('proposal made');
  t.diagnostic(
    JSON.stringify({
      changes: check.proposal?.changes.map((c) => [c.rule, c.probe_id]),
      declined: check.proposal?.declined,
      considered: check.proposal?.considered,
    }),
  );
  assert.equal(check.outcome, 'proposed', check.detail);
  const proposal = check.proposal!;
  assert.equal(proposal.considered.traffic, 'read');
  assert.ok(proposal.considered.traffic_answers >= report.answered * 0.75, `read ${proposal.considered.traffic_answers} answers`);
  assert.deepEqual(
    proposal.changes.filter((c) => c.kind === 'retire').map((c) => [c.rule, c.probe_id]),
    [['retire-gone-source', 'source-gone']],
  );
  const adds = proposal.changes.filter((c) => c.kind === 'add');
  assert.ok(proposal.considered.candidates >= 1, 'the traffic offered candidates');
  // Every traffic candidate is either added or declined with the builder's reason (or as not needed).
  assert.equal(adds.length + proposal.declined.filter((d) => d.rule.startsWith('add-')).length, proposal.considered.candidates);
  for (const add of adds) {
    assert.notDeepEqual(add.probe?.expected_sources, [covered], 'the most asked knowledge has its probe already');
    assert.match(add.reason, /(asked \d+ times|fragile: ).*builder: fragile/);
  }
  assert.equal(readFileSync(probesFile, 'utf8'), before, 'nothing applied before review');
  // What the proposal keeps of user text is the intake's redacted wording.
  const stored = readFileSync(proposalFile(config, probesFile), 'utf8');
  assert.doesNotMatch(stored, /@example\.org|4111 1111|7946/);

  const shown = (await (await fetch(`${url}/probes/proposals`, { headers: { authorization: `Bearer ${OPERATOR}` } })).json()) as {
    proposals: { proposal_id: string; state: string }[];
  };
  assert.deepEqual(
    shown.proposals.map((p) => [p.proposal_id, p.state]),
    [[proposal.proposal_id, 'pending']],
  );
  const viewer = await fetch(`${url}/probes/proposals/${proposal.proposal_id}/accept`, {
    method: 'POST',
    headers: { authorization: 'Bearer viewer-token-0123456789abcdef' },
  });
  assert.equal(viewer.status, 403, 'read only: refused');
  assert.equal(readFileSync(probesFile, 'utf8'), before);

  const accepted = await immune('probes', 'accept', proposal.proposal_id, '--url', url, '--json');
  assert.equal(accepted.status, 0, accepted.stderr);
  assert.equal((JSON.parse(accepted.stdout) as { decided_by: string }).decided_by, 'operator');
  const after = parseProbeFile(readFileSync(probesFile, 'utf8'));
  assert.ok(after.find((p) => p.id === 'source-gone')?.retired_at, 'the gone-source probe is retired');
  assert.deepEqual(
    after.filter((p) => p.retired_at === null).map((p) => p.id),
    ['covers-top', 'other-0', 'other-1', ...adds.map((a) => a.probe_id)],
  );
  phase('accepted');
});
