import { test } from 'node:test';
import assert from 'node:assert/strict';
import { switchAliasBack } from '../../../src/actions/switch-alias-back.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import type { AliasHistoryPort, AliasSighting } from '../../../src/actions/rag-repair-access.ts';
import { fakeContext, type FakeContext } from '../support/fake-rag-client.ts';

const HOUR = 3_600_000;
const VECTORS = { size: 384, distance: 'Cosine' };

/** The alias history in memory: `seen(collection, firstAgoMs, lastAgoMs)`. */
class FakeAliasHistory implements AliasHistoryPort {
  readonly rows: AliasSighting[] = [];
  seen(collection: string, firstAgoMs: number, lastAgoMs: number): void {
    const at = (ago: number) => new Date(Date.now() - ago).toISOString();
    this.rows.push({ alias: 'kb', collection, first_seen: at(firstAgoMs), last_seen: at(lastAgoMs) });
  }
  async observe(alias: string, collection: string, at = new Date()): Promise<void> {
    const row = this.rows.find((r) => r.alias === alias && r.collection === collection);
    if (row) row.last_seen = at.toISOString();
    else this.rows.push({ alias, collection, first_seen: at.toISOString(), last_seen: at.toISOString() });
  }
  async sightings(alias: string): Promise<AliasSighting[]> {
    return this.rows.filter((r) => r.alias === alias).sort((a, b) => Date.parse(b.last_seen) - Date.parse(a.last_seen));
  }
}

/**
 * A hookless RAG whose own ingestion moved its alias `kb` from kb-v1 (served for two days) to kb-v2
 * half an hour ago; the incident window began 20 minutes ago.
 */
function movedAlias(): FakeContext & { history: FakeAliasHistory } {
  const history = new FakeAliasHistory();
  const fake = fakeContext({ report: { window_start: Date.now() - HOUR / 3 }, ctx: { aliasHistory: history } });
  fake.aliases.aliases.set('kb', 'kb-v2');
  fake.aliases.collections.set('kb-v0', { points: 80, vectors: VECTORS });
  fake.aliases.collections.set('kb-v1', { points: 100, vectors: VECTORS });
  fake.aliases.collections.set('kb-v2', { points: 100, vectors: VECTORS });
  history.seen('kb-v0', 100 * HOUR, 50 * HOUR);
  history.seen('kb-v1', 50 * HOUR, HOUR / 2);
  history.seen('kb-v2', HOUR / 2, 0);
  return { ...fake, history };
}

test('switch_alias_back plans the collection the alias served last before the incident window', async () => {
  const { ctx } = movedAlias();
  assert.deepEqual(await switchAliasBack.plan(ctx, {}), { alias: 'kb', from_collection: 'kb-v2', to_collection: 'kb-v1' });
  assert.equal(switchAliasBack.touchesQdrant, false, 'nothing is written: no snapshot');
  assert.equal(switchAliasBack.availability, 'without_repair_hooks');
});

test('switch_alias_back skips an earlier target that is gone and refuses without history, alias or an earlier target', async () => {
  const gone = movedAlias();
  gone.aliases.collections.delete('kb-v1');
  assert.equal((await switchAliasBack.plan(gone.ctx, {})).to_collection, 'kb-v0');
  gone.aliases.collections.delete('kb-v0');
  await assert.rejects(switchAliasBack.plan(gone.ctx, {}), /are gone or empty/);

  const noHistory = movedAlias();
  delete noHistory.ctx.aliasHistory;
  await assert.rejects(switchAliasBack.plan(noHistory.ctx, {}), /no alias history/);

  const plain = movedAlias();
  plain.aliases.aliases.delete('kb');
  await assert.rejects(switchAliasBack.plan(plain.ctx, {}), PreconditionError);

  // Only seen during the incident (first seen after its window began): not a way back to before it.
  const young = movedAlias();
  young.history.rows.splice(0, young.history.rows.length);
  young.history.seen('kb-v1', HOUR / 4, HOUR / 5);
  young.history.seen('kb-v2', HOUR / 6, 0);
  await assert.rejects(switchAliasBack.plan(young.ctx, {}), /no other collection than kb-v2/);
});

test('switch_alias_back switches in one swap, records it, and undo switches forward again deleting nothing', async () => {
  const { ctx, aliases, history } = movedAlias();
  const args = await switchAliasBack.plan(ctx, {});
  await switchAliasBack.preconditions(ctx, args);
  const prior = await switchAliasBack.capture(ctx, args);
  assert.deepEqual(prior, { from_collection: 'kb-v2' });
  const { detail } = (await switchAliasBack.execute(ctx, args)) as { detail: Record<string, unknown> };
  assert.equal(detail.switched, true);
  assert.deepEqual(aliases.log, ['swap kb kb-v2 -> kb-v1']);
  assert.equal(await switchAliasBack.verify(ctx, args), null);
  assert.ok(Date.now() - Date.parse(history.rows.find((r) => r.collection === 'kb-v1')!.last_seen) < 5_000, 'the switch is recorded');
  assert.equal(await switchAliasBack.undoBlocker!(ctx, args, prior), null);
  await switchAliasBack.undo(ctx, args, prior);
  assert.equal(aliases.aliases.get('kb'), 'kb-v2');
  assert.deepEqual([...aliases.collections.keys()].sort(), ['kb-v0', 'kb-v1', 'kb-v2'], 'both collections are the RAG’s own: none deleted');
});

test('switch_alias_back refuses an alias moved since the plan, and its undo is blocked when a later change owns the alias', async () => {
  const { ctx, aliases } = movedAlias();
  const args = await switchAliasBack.plan(ctx, {});
  aliases.aliases.set('kb', 'kb-v3');
  aliases.collections.set('kb-v3', { points: 100, vectors: VECTORS });
  await assert.rejects(switchAliasBack.preconditions(ctx, args), /moved to kb-v3/);
  aliases.aliases.set('kb', 'kb-v2');
  const prior = await switchAliasBack.capture(ctx, args);
  await switchAliasBack.execute(ctx, args);
  aliases.aliases.set('kb', 'kb-v3');
  assert.match((await switchAliasBack.undoBlocker!(ctx, args, prior))!, /a later change owns it/);
  await assert.rejects(switchAliasBack.undo(ctx, args, prior), /a later change owns it/);
  assert.equal(aliases.aliases.get('kb'), 'kb-v3', 'the later change is left alone');
});
