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
  return { recorder, probeIntervalMs: 20_000 } as unknown as TrialContext;
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
