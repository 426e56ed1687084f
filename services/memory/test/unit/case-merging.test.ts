import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEvent, emptyCase, type CaseEvent, type HealingCase } from '../../src/cases/healing-case.ts';
import type { RootCauseReport } from '@rag-immune/contracts';
import { action, claim, exampleIndexDiff, report } from '../support/events.ts';

const now = new Date('2026-11-30T12:00:00Z');
const T = now.getTime();

function fold(events: CaseEvent[], incident = 'inc-1'): HealingCase {
  let c = emptyCase(incident, 'default', now);
  for (const e of events) c = applyEvent(c, e, now) ?? c;
  return c;
}

/** The parts of a case that must not depend on delivery order. */
function essence(c: HealingCase) {
  return {
    signature: c.signature,
    signature_key: c.signature_key,
    actions: c.actions,
    outcome: c.outcome,
    intents: c.intents,
    recovered_by: c.recovered_by,
    ttr: c.time_to_recovery_ms,
    sources: [...c.card.source_event_ids].sort(),
  };
}

test('a report then a successful repair make a recovered case with its time to recovery', () => {
  const r = report('inc-1', { at: T - 120_000 });
  const started = action('inc-1', { status: 'started', at: T - 60_000 });
  const done = action('inc-1', { action_id: started.action_id, status: 'succeeded', at: T - 30_000 });
  const c = fold([
    { kind: 'report', event: r },
    { kind: 'action', event: started },
    { kind: 'action', event: done },
  ]);
  assert.equal(c.outcome, 'recovered');
  assert.deepEqual(c.intents, ['rollback_reranker']);
  assert.equal(c.actions.length, 1);
  assert.equal(c.recovered_by, 'rollback_reranker');
  assert.equal(c.time_to_recovery_ms, T - 30_000 - r.window_start);
  assert.match(c.signature_text, /reranker drift in reranker/);
  assert.match(c.signature_text, /top1 rerank score collapsed/);
  assert.equal(c.card.source_event_ids.length, 3);
});

test('every delivery order of the same events gives the same case', () => {
  const r = report('inc-1', { at: T - 300_000 });
  const a1 = action('inc-1', { intent: 'rebuild_index_incremental', status: 'started', at: T - 200_000 });
  const a1f = action('inc-1', { action_id: a1.action_id, intent: 'rebuild_index_incremental', status: 'failed', at: T - 190_000 });
  const a2 = action('inc-1', { status: 'started', attempt: 2, at: T - 100_000 });
  const a2s = action('inc-1', { action_id: a2.action_id, status: 'succeeded', attempt: 2, at: T - 90_000 });
  const events: CaseEvent[] = [
    { kind: 'report', event: r },
    { kind: 'action', event: a1 },
    { kind: 'action', event: a1f },
    { kind: 'action', event: a2 },
    { kind: 'action', event: a2s },
  ];
  const reference = essence(fold(events));
  assert.deepEqual(reference.intents, ['rebuild_index_incremental', 'rollback_reranker']);
  assert.equal(reference.outcome, 'recovered');
  // A few fixed permutations, including every action before its report and the terminal step first.
  const orders = [
    [4, 3, 2, 1, 0],
    [1, 2, 3, 4, 0],
    [2, 0, 4, 1, 3],
    [3, 4, 0, 2, 1],
  ];
  for (const order of orders)
    assert.deepEqual(essence(fold(order.map((i) => events[i] as CaseEvent))), reference, `order ${order.join(',')}`);
});

test('a duplicate event changes nothing and is reported as such', () => {
  const r = report('inc-1');
  const once = fold([{ kind: 'report', event: r }]);
  assert.equal(applyEvent(once, { kind: 'report', event: r }, now), null);
  const twice = fold([
    { kind: 'report', event: r },
    { kind: 'report', event: r },
  ]);
  assert.deepEqual(twice, once);
});

test('an action for an incident with no report yet opens a case without a signature, which the report fills later', () => {
  const a = action('inc-9', { status: 'succeeded' });
  const early = fold([{ kind: 'action', event: a }], 'inc-9');
  assert.equal(early.signature, null);
  assert.equal(early.signature_key, '');
  assert.equal(early.outcome, 'recovered');
  const later = applyEvent(early, { kind: 'report', event: report('inc-9') }, now);
  assert.ok(later);
  assert.equal(later.signature?.root_cause, 'reranker_drift');
  assert.notEqual(later.signature_key, '');
});

test('an older report revision arriving late never replaces the newer one', () => {
  const r2 = report('inc-1', { report_revision: 2, root_cause: 'parser_bug', affected_component: 'parser' });
  const r1 = report('inc-1', { report_revision: 1 });
  const c = fold([
    { kind: 'report', event: r2 },
    { kind: 'report', event: r1 },
  ]);
  assert.equal(c.signature?.root_cause, 'parser_bug');
  assert.equal(c.signature?.report_revision, 2);
  assert.equal(c.card.source_event_ids.length, 2);
});

test('a late "started" never undoes a "succeeded", and a rollback after success counts as failure', () => {
  const done = action('inc-1', { status: 'succeeded', at: T });
  const started = action('inc-1', { action_id: done.action_id, status: 'started', at: T - 10_000 });
  const c = fold([
    { kind: 'action', event: done },
    { kind: 'action', event: started },
  ]);
  assert.equal(c.actions[0]?.status, 'succeeded');
  assert.equal(c.outcome, 'recovered');
  const rolledBack = applyEvent(
    c,
    { kind: 'action', event: action('inc-1', { action_id: done.action_id, status: 'rolled_back', at: T + 5000 }) },
    now,
  );
  assert.equal(rolledBack?.actions[0]?.status, 'rolled_back');
  assert.equal(rolledBack?.outcome, 'failed');
});

test('a "succeeded" whose verification did not recover is a failure; escalation makes the case escalated', () => {
  const c = fold([
    { kind: 'action', event: action('inc-1', { status: 'succeeded', recovered: false, at: T - 2000 }) },
    { kind: 'action', event: action('inc-1', { intent: 'escalate_to_human', tool: 'page', status: 'escalated', at: T - 1000 }) },
  ]);
  assert.equal(c.outcome, 'escalated');
  assert.equal(c.recovered_by, null);
});

test('an event of another incident is refused', () => {
  assert.throws(() => applyEvent(emptyCase('inc-1', 'default', now), { kind: 'report', event: report('inc-2') }, now), /inc-2/);
});

test('near signatures share a key; a different move or scope does not', () => {
  const key = (observed: number, ids: string[] = []) =>
    fold(
      [
        {
          kind: 'report',
          event: report('x', { claims: [claim('rerank_score_shift', 'top1_rerank_score', observed, 0.9)], affected_knowledge_ids: ids }),
        },
      ],
      'x',
    ).signature_key;
  assert.equal(key(0.3), key(0.35));
  assert.notEqual(key(0.3), key(0.85));
  assert.notEqual(key(0.3), key(0.3, ['pkg/a', 'pkg/b', 'pkg/c', 'pkg/d', 'pkg/e']));
});

test('the case keeps the index diff its latest report carried; a report without one (an older identifier) keeps none', () => {
  const diff = exampleIndexDiff();
  const first = report('inc-1', { at: T - 120_000 });
  const second = report('inc-1', { at: T - 60_000, report_revision: 2, root_cause: 'unknown', index_diff: diff });
  const c = fold([
    { kind: 'report', event: second },
    { kind: 'report', event: first },
  ]);
  assert.deepEqual(c.signature?.index_diff, diff);
  assert.doesNotMatch(c.signature_text, /text changed/, 'evidence, not a symptom: the signature text is unchanged');
  const old: RootCauseReport = report('inc-2', { at: T });
  delete (old as Partial<RootCauseReport>).index_diff;
  assert.equal(fold([{ kind: 'report', event: old }], 'inc-2').signature?.index_diff, null);
});
