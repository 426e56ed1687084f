import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RepairAction } from '@rag-immune/contracts';
import { applyEvent, emptyCase, symptomOverlap, type CaseSignature, type HealingCase } from '../../src/cases/healing-case.ts';
import {
  caseWeight,
  halfLifeWeight,
  rankStrategies,
  rankingSimilarity,
  type RankingCandidate,
} from '../../src/recommend/strategy-ranking.ts';
import { action, report } from '../support/events.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const DAY = 86_400_000;

/** A case whose steps are (intent, healed?) in order, `ageDays` old. */
function healingCase(id: string, steps: [RepairAction['intent'], boolean][], ageDays = 0): HealingCase {
  const at = NOW - ageDays * DAY;
  let c = emptyCase(id, 'default', new Date(at));
  c = applyEvent(c, { kind: 'report', event: report(id, { at }) }, new Date(at)) ?? c;
  steps.forEach(([intent, healed], i) => {
    const event = action(id, { intent, tool: `tool-${intent}`, status: healed ? 'succeeded' : 'failed', at: at + (i + 1) * 1000 });
    c = applyEvent(c, { kind: 'action', event }, new Date(at)) ?? c;
  });
  return c;
}

const candidate = (c: HealingCase, similarity: number): RankingCandidate => ({ healingCase: c, similarity });
const opts = { now: NOW, halfLifeDays: 30 };

test('half-life weight: 1 now, 1/2 after one half-life, 1/4 after two', () => {
  assert.equal(halfLifeWeight(0, 30), 1);
  assert.ok(Math.abs(halfLifeWeight(30 * DAY, 30) - 0.5) < 1e-12);
  assert.ok(Math.abs(halfLifeWeight(60 * DAY, 30) - 0.25) < 1e-12);
});

test('the intent that healed the most similar cases comes first, with its tool and supporting cases', () => {
  const ranking = rankStrategies(
    [
      candidate(healingCase('a', [['rollback_reranker', true]]), 0.95),
      candidate(healingCase('b', [['rollback_reranker', true]]), 0.9),
      candidate(healingCase('c', [['add_query_rewrite_rule', true]]), 0.65),
    ],
    opts,
  );
  assert.deepEqual(
    ranking.strategy.map((s) => s.intent),
    ['rollback_reranker', 'add_query_rewrite_rule'],
  );
  assert.equal(ranking.strategy[0]?.tool, 'tool-rollback_reranker');
  assert.deepEqual(
    ranking.supporting.map((s) => s.healingCase.incident_id),
    ['a', 'b'],
  );
  assert.ok(ranking.confidence > 0.6 && ranking.confidence <= 1, String(ranking.confidence));
});

test('a strategy that failed on similar incidents is demoted below one that healed them', () => {
  const ranking = rankStrategies(
    [
      // rebuild was tried first and failed twice; rollback healed after it
      candidate(
        healingCase('a', [
          ['rebuild_index_incremental', false],
          ['rollback_reranker', true],
        ]),
        0.9,
      ),
      candidate(
        healingCase('b', [
          ['rebuild_index_incremental', false],
          ['rollback_reranker', true],
        ]),
        0.85,
      ),
      candidate(healingCase('c', [['rebuild_index_incremental', true]]), 0.8),
    ],
    opts,
  );
  assert.equal(ranking.strategy[0]?.intent, 'rollback_reranker');
  assert.ok(!ranking.strategy.some((s) => s.intent === 'rebuild_index_incremental'), 'net-negative intent must not be recommended');
  const rebuild = ranking.evidence.find((e) => e.intent === 'rebuild_index_incremental');
  assert.ok(rebuild && rebuild.score < 0);
});

test('recency: a recent success outweighs an old one of equal similarity', () => {
  const ranking = rankStrategies(
    [
      candidate(healingCase('old', [['refresh_knowledge_source', true]], 120), 0.9),
      candidate(healingCase('new', [['switch_backup_source', true]], 1), 0.9),
    ],
    opts,
  );
  assert.equal(ranking.strategy[0]?.intent, 'switch_backup_source');
});

test('similarity: a closer case outweighs a farther one of the same age', () => {
  const ranking = rankStrategies(
    [
      candidate(healingCase('far', [['refresh_knowledge_source', true]]), 0.62),
      candidate(healingCase('near', [['switch_backup_source', true]]), 0.97),
    ],
    opts,
  );
  assert.equal(ranking.strategy[0]?.intent, 'switch_backup_source');
});

test('excluded intents are never recommended; nothing healed means no strategy', () => {
  const cases = [
    candidate(healingCase('a', [['rollback_reranker', true]]), 0.9),
    candidate(healingCase('b', [['reparse_documents', true]]), 0.7),
  ];
  const ranking = rankStrategies(cases, { ...opts, excludeIntents: ['rollback_reranker'] });
  assert.deepEqual(
    ranking.strategy.map((s) => s.intent),
    ['reparse_documents'],
  );
  const none = rankStrategies([candidate(healingCase('f', [['rollback_reranker', false]]), 0.9)], opts);
  assert.deepEqual(none.strategy, []);
  assert.equal(none.confidence, 0);
});

test('a compacted case counts for each duplicate it stands for', () => {
  const many = healingCase('many', [['reparse_documents', true]]);
  many.card.duplicate_count = 4;
  const ranking = rankStrategies([candidate(many, 0.85), candidate(healingCase('one', [['rollback_reranker', true]]), 0.9)], opts);
  assert.equal(ranking.strategy[0]?.intent, 'reparse_documents');
});

test('symptom overlap: same claims and scope size 1, one claim of three swapped 0.5; it scales the ranking similarity', () => {
  const signature = (metrics: string[], ids: string[]): CaseSignature => ({
    report_event_id: 'e',
    report_revision: 1,
    root_cause: 'knowledge_source_failure',
    affected_component: 'knowledge_source',
    confidence: 0.9,
    claims: metrics.map((metric) => ({ kind: 'knowledge_staleness', metric, subject: 's', observed: 100, baseline: 0 })),
    affected_knowledge_ids: ids,
    window_start: NOW,
  });
  const stale = signature(['served_version_age_days_vs_baseline', 'feed_behind_baseline_days'], ['changelog/a']);
  const stalled = signature(['served_version_age_days_vs_baseline', 'index_behind_feed_days'], ['changelog/b']);
  assert.equal(symptomOverlap(stale, signature(['feed_behind_baseline_days', 'served_version_age_days_vs_baseline'], ['changelog/c'])), 1);
  // {served, feed, scope:narrow} vs {served, index, scope:narrow}: 2 shared of 4.
  assert.equal(symptomOverlap(stale, stalled), 0.5);
  // The scope's size is a symptom too: 25 ids read "wide", 1 reads "narrow".
  const wide = signature(
    ['served_version_age_days_vs_baseline', 'feed_behind_baseline_days'],
    Array.from({ length: 25 }, (_, i) => `k${i}`),
  );
  assert.equal(symptomOverlap(stale, wide), 0.5);
  assert.equal(symptomOverlap(null, null), 1);
  // A same-symptom case at cosine 0.96 outweighs a different-symptom one at 0.98 on the same documents.
  const near = caseWeight(candidate(healingCase('near', [['rebuild_index_incremental', true]]), rankingSimilarity(0.96, 1)), opts);
  const far = caseWeight(candidate(healingCase('far', [['switch_backup_source', true]]), rankingSimilarity(0.98, 0.5)), opts);
  assert.ok(near > 1000 * far, `${near} vs ${far}`);
});
