/**
 * evaluateTrial's `recommended` outcome (issue 42): on a RAG without repair hooks a prompt change is
 * named, and its repair is a recommendation waiting for a person's grant. The trial ends there and says
 * so; a grant asked for a wrongly named incident does not count.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RootCauseReport } from '@rag-immune/contracts';
import { evaluateTrial, type TrialContext } from '../../src/loop/trial.ts';
import type { HealingLine } from '../../src/loop/timeline.ts';

const injectedAt = 1_000_000;
const injected = {
  plan: { kind: 'prompt-regressed', mode: 'instruct-v2' },
  body: {},
  affectedKnowledgeIds: null,
  touched: [],
  injectStartedAt: injectedAt - 500,
  injectedAt,
  harmed: null,
};

function report(rootCause: string, component: string): RootCauseReport {
  return {
    incident_id: 'inc-1',
    occurred_at: injectedAt + 30_000,
    root_cause: rootCause,
    affected_component: component,
    affected_probes: [{ probe_id: 'p1' }],
    confidence: 0.82,
  } as unknown as RootCauseReport;
}

const grantLine: HealingLine = {
  worker: 'effector-0',
  at: injectedAt + 40_000,
  incidentId: 'inc-1',
  message: 'recommend_generation_rollback waits for a human grant (operator step: redeploy the route)',
  fields: { tool: 'recommend_generation_rollback' },
};

function ctxWith(reports: RootCauseReport[], healing: HealingLine[]): TrialContext {
  const recorder = {
    reports: reports.map((event) => ({ event })),
    probes: [{ event: { probe_id: 'p1', anomaly: true, occurred_at: injectedAt + 5_000 } }],
    actions: [],
    healing,
  };
  return { recorder, probeIntervalMs: 20_000, probes: { probes: [] } } as unknown as TrialContext;
}

test('a correct report whose repair waits for a human grant is `recommended`, with the tool and when it asked', () => {
  const result = evaluateTrial(
    ctxWith([report('generator_inconsistency', 'generator')], [grantLine]),
    injected,
    new Set(),
    injectedAt + 60_000,
  );
  assert.equal(result.outcome, 'recommended');
  assert.deepEqual(result.awaitingGrant, [{ tool: 'recommend_generation_rollback', at: injectedAt + 40_000 }]);
});

test('without the grant line it is still waiting (timeout); with a wrong cause it is not a recommendation', () => {
  assert.equal(
    evaluateTrial(ctxWith([report('generator_inconsistency', 'generator')], []), injected, new Set(), injectedAt + 60_000).outcome,
    'timeout',
  );
  const wrong = evaluateTrial(
    ctxWith([report('vector_index_corruption', 'vector_index')], [grantLine]),
    injected,
    new Set(),
    injectedAt + 60_000,
  );
  assert.notEqual(wrong.outcome, 'recommended');
  assert.equal(wrong.awaitingGrant.length, 1);
});

test('seenKnowledgeIds: the damaged ids whose probes were anomalous before the verified repair (the CI race)', () => {
  // Two ids damaged; the repair (whole index) was verified before the second id's probe had its turn.
  const damaged = { ...injected, plan: { kind: 'unpublished-knowledge' }, affectedKnowledgeIds: ['kb/a', 'kb/b'], touched: ['pa', 'pb'] };
  const verified = { incident_id: 'inc-1', action_id: 'a1', intent: 'rebuild_index_incremental', tool: 'reindex_into_new_collection' };
  const recorder = {
    reports: [{ event: { ...report('unpublished_knowledge', 'vector_index'), occurred_at: injectedAt + 900 } }],
    probes: [
      { event: { probe_id: 'pb', anomaly: true, occurred_at: injectedAt + 600 } },
      { event: { probe_id: 'pa', anomaly: true, occurred_at: injectedAt + 9_000 } }, // after the repair verified: not what the report could name
      { event: { probe_id: 'pc', anomaly: true, occurred_at: injectedAt + 700 } }, // another probe, untouched
    ],
    actions: [
      { event: { ...verified, status: 'succeeded', attempt: 1, occurred_at: injectedAt + 2_400, verification: { recovered: true } } },
    ],
    healing: [],
  };
  const probes = { probes: ['pa', 'pb', 'pc'].map((id) => ({ id, expected_sources: [`kb/${id.slice(1)}`] })) };
  const ctx = { recorder, probeIntervalMs: 4_000, probes } as unknown as TrialContext;
  const result = evaluateTrial(ctx, damaged, new Set(), injectedAt + 20_000);
  assert.equal(result.outcome, 'healed');
  assert.deepEqual(result.seenKnowledgeIds, ['kb/b']);
  // Unverified: every anomalous damaged id counts.
  const unverified = evaluateTrial(
    { ...ctx, recorder: { ...recorder, actions: [] } } as unknown as TrialContext,
    damaged,
    new Set(),
    injectedAt + 20_000,
  );
  assert.deepEqual(unverified.seenKnowledgeIds, ['kb/a', 'kb/b']);
});
