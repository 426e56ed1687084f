import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RepairAction } from '@rag-immune/contracts';
import { applyEvent, emptyCase, type HealingCase } from '../../src/cases/healing-case.ts';
import { planForgetting } from '../../src/forgetting/forgetting-policy.ts';
import { action, claim, report } from '../support/events.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const DAY = 86_400_000;
const options = { now: NOW, halfLifeDays: 30, archiveBelow: 0.05 };

function healingCase(id: string, steps: [RepairAction['intent'], boolean][], ageDays: number, observed = 0.4): HealingCase {
  const at = NOW - ageDays * DAY;
  let c = emptyCase(id, 'default', new Date(at));
  c =
    applyEvent(
      c,
      { kind: 'report', event: report(id, { at, claims: [claim('rerank_score_shift', 'top1_rerank_score', observed, 0.9)] }) },
      new Date(at),
    ) ?? c;
  steps.forEach(([intent, healed], i) => {
    c =
      applyEvent(
        c,
        { kind: 'action', event: action(id, { intent, status: healed ? 'succeeded' : 'failed', at: at + (i + 1) * 1000 }) },
        new Date(at),
      ) ?? c;
  });
  return c;
}

const byId = (plan: ReturnType<typeof planForgetting>) => new Map(plan.changed.map((c) => [c.incident_id, c]));

test('a failed strategy is demoted once, with the change recorded', () => {
  const failed = healingCase('f', [['rollback_reranker', false]], 1, 0.1);
  const plan = planForgetting([failed], options);
  const after = byId(plan).get('f');
  assert.equal(after?.card.importance, 0.5);
  assert.equal(after?.card.status, 'active');
  assert.deepEqual(
    after?.card.history.map((h) => [h.field, h.from, h.to, h.reason]),
    [['importance', 1, 0.5, 'failed_strategy_demoted']],
  );
  assert.equal(planForgetting(plan.changed, options).changed.length, 0, 'a second sweep changes nothing');
});

test('conflicting cases: a recent success supersedes an older failure of the same signature', () => {
  const oldFailure = healingCase('old', [['rollback_reranker', false]], 20);
  const newSuccess = healingCase('new', [['rollback_reranker', true]], 2);
  assert.equal(oldFailure.signature_key, newSuccess.signature_key);
  const after = byId(planForgetting([oldFailure, newSuccess], options));
  assert.equal(after.get('old')?.card.status, 'superseded');
  assert.equal(after.get('old')?.card.superseded_by, newSuccess.case_id);
  assert.ok(after.get('old')?.card.history.some((h) => h.field === 'status' && h.to === 'superseded' && h.reason === 'conflict_resolved'));
  assert.equal(after.get('new')?.card.status ?? 'active', 'active');
});

test('conflicting cases: a much more recent failure beats an old success, a close one does not', () => {
  const oldSuccess = healingCase('s', [['rollback_reranker', true]], 90);
  const recentFailure = healingCase('f', [['rollback_reranker', false]], 1);
  // 0.5^(90/30) * 1 = 0.125 < 0.5^(1/30) * 0.5 ≈ 0.49
  assert.equal(byId(planForgetting([oldSuccess, recentFailure], options)).get('s')?.card.status, 'superseded');
  const closeSuccess = healingCase('s2', [['rollback_reranker', true]], 5);
  // 0.5^(5/30) ≈ 0.89 > 0.49
  assert.equal(byId(planForgetting([closeSuccess, recentFailure], options)).get('f')?.card.status, 'superseded');
});

test('near-duplicates are compacted into the newest with their count; different signatures are left alone', () => {
  const a = healingCase('a', [['rollback_reranker', true]], 10, 0.4);
  const b = healingCase('b', [['rollback_reranker', true]], 5, 0.42);
  const c = healingCase('c', [['rollback_reranker', true]], 3, 0.38);
  const other = healingCase('o', [['rollback_reranker', true]], 4, 0.88);
  const plan = planForgetting([a, b, c, other], options);
  const after = byId(plan);
  assert.equal(after.get('c')?.card.duplicate_count, 3);
  assert.equal(after.get('a')?.card.status, 'superseded');
  assert.equal(after.get('a')?.card.superseded_by, c.case_id);
  assert.equal(after.get('b')?.card.status, 'superseded');
  assert.equal(after.has('o'), false);
  assert.equal(plan.transitions.filter((t) => t.reason === 'compacted').length, 4);
  // Nothing is deleted: every input case is still there, superseded or not.
  assert.equal(plan.changed.length, 3);
});

test('old cases decay below the floor and are archived, recorded; recently used ones are kept', () => {
  const ancient = healingCase('ancient', [['reparse_documents', true]], 200, 0.1);
  const usedLately = healingCase('used', [['add_query_rewrite_rule', true]], 200, 0.2);
  usedLately.signature_key = 'different';
  usedLately.card.last_used_at = new Date(NOW - DAY).toISOString();
  const after = byId(planForgetting([ancient, usedLately], options));
  assert.equal(after.get('ancient')?.card.status, 'archived');
  assert.match(after.get('ancient')?.card.history.at(-1)?.reason ?? '', /^decayed/);
  assert.equal(after.has('used'), false);
});

test('open cases and non-active cases are never touched', () => {
  const open = emptyCase('open', 'default', new Date(NOW - 400 * DAY));
  const archived = healingCase('arch', [['rollback_reranker', false]], 1);
  archived.card.status = 'archived';
  assert.equal(planForgetting([open, archived], options).changed.length, 0);
});
