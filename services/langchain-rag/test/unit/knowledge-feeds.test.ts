import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import type { Document } from '@langchain/core/documents';
import express from 'express';
import { HistoryProvider, KnowledgeSource, chainValidity, type KnowledgeRecord } from '@rag-immune/debian-knowledge';
import { repairRoutes } from '@rag-immune/langchain';
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { KnowledgeFeeds, staleFeed, type FeedIndex, type HeldPoint } from '../../src/knowledge-feeds.ts';

const record = (id: string, version: string, from: string): KnowledgeRecord => ({
  knowledgeId: id,
  docId: id,
  version,
  source: 'debian-changelog',
  validFrom: new Date(from),
  validUntil: null,
  updatedAt: new Date(from),
  fields: [
    ['Package', id],
    ['Version', version],
  ],
  body: '',
});
const history = chainValidity([
  record('changelog/acl', '2.3.1-1', '2022-01-01T00:00:00Z'),
  record('changelog/acl', '2.3.1-3', '2024-09-01T00:00:00Z'),
  record('changelog/zstd', '1.5.5-1', '2023-03-01T00:00:00Z'),
  record('changelog/zstd', '1.5.6-1', '2025-02-01T00:00:00Z'),
]);
const NOW = new Date('2026-01-01T00:00:00Z');
const STALE_AS_OF = new Date('2024-01-01T00:00:00Z');

/** The index in memory: what a Qdrant collection holds, by point id. */
class MemoryIndex implements FeedIndex {
  readonly points = new Map<number, HeldPoint>();
  private next = 1;
  rewrites = 0;
  held(filter: { source?: string; knowledgeId?: string }): Promise<HeldPoint[]> {
    return Promise.resolve(
      [...this.points.values()].filter(
        (p) =>
          (filter.source === undefined || p.source === filter.source) &&
          (filter.knowledgeId === undefined || p.knowledgeId === filter.knowledgeId),
      ),
    );
  }
  rewrite(documents: Document[], replaced: readonly (string | number)[]): Promise<void> {
    this.rewrites += 1;
    for (const doc of documents) {
      const m = doc.metadata;
      const id = this.next++;
      this.points.set(id, {
        pointId: id,
        knowledgeId: m.knowledge_id,
        chunkId: m.chunk_id,
        version: m.version,
        validFrom: m.valid_from,
        source: m.source,
        indexedAt: m.indexed_at,
      });
    }
    for (const id of replaced) this.points.delete(id as number);
    return Promise.resolve();
  }
  versions(id: string): string[] {
    return [...this.points.values()]
      .filter((p) => p.knowledgeId === id)
      .map((p) => p.version)
      .sort();
  }
}

/** A source whose primary is deployed stale for acl only (the backup is a current mirror), its feeds and index. */
function staleDeploy(ids: Set<string> | undefined = new Set(['changelog/acl'])) {
  const source = new KnowledgeSource('debian-changelog', 0.9, new HistoryProvider(history), new HistoryProvider(history));
  source.wrapPrimary((inner) => staleFeed(inner, STALE_AS_OF, ids));
  const index = new MemoryIndex();
  const feeds = new KnowledgeFeeds({ sources: [source], index, knowledgeTime: () => NOW, now: () => NOW });
  return { source, index, feeds };
}

describe('knowledge feeds: a stale primary, a current backup, the index synced from the active feed', () => {
  it('a stale primary serves the scoped ids as of its snapshot and the others as published now', () => {
    const stale = staleFeed(new HistoryProvider(history), STALE_AS_OF, new Set(['changelog/acl']));
    const versions = (id: string) =>
      stale
        .recordsPublishedBy(NOW)
        .filter((r) => r.knowledgeId === id)
        .map((r) => r.version);
    assert.deepEqual(versions('changelog/acl'), ['2.3.1-1']);
    assert.deepEqual(versions('changelog/zstd'), ['1.5.5-1', '1.5.6-1']);
    // Unscoped: the whole source is stale.
    const all = staleFeed(new HistoryProvider(history), STALE_AS_OF);
    assert.deepEqual(
      all.recordsPublishedBy(NOW).map((r) => r.version),
      ['2.3.1-1', '1.5.5-1'],
    );
  });

  it('ingestion reads the active feed, and the freshness lookup shows the index in step with a feed behind the truth', async () => {
    const { index, feeds } = staleDeploy();
    assert.deepEqual(await feeds.sync(), { upserted: 3, deleted: 0, knowledge_ids: 2 });
    assert.deepEqual(index.versions('changelog/acl'), ['2.3.1-1']);
    assert.deepEqual(feeds.activeFeeds(), { 'debian-changelog': 'primary' });
    assert.deepEqual(await feeds.freshness('changelog/acl'), {
      knowledge_id: 'changelog/acl',
      source: 'debian-changelog',
      feed_provider: 'primary',
      as_of: NOW.toISOString(),
      feed: { version: '2.3.1-1', valid_from: '2022-01-01T00:00:00.000Z' },
      indexed: { version: '2.3.1-1', valid_from: '2022-01-01T00:00:00.000Z', indexed_at: NOW.toISOString() },
    });
    // In step: a second sync rewrites nothing.
    assert.deepEqual(await feeds.sync(), { upserted: 0, deleted: 0, knowledge_ids: 0 });
    assert.equal(index.rewrites, 1);
  });

  it('switch_to_backup re-syncs only the ids whose versions differ; switch_to_primary brings the stale snapshot back', async () => {
    const { source, index, feeds } = staleDeploy();
    await feeds.sync();
    const zstdPoints = [...index.points.values()].filter((p) => p.knowledgeId === 'changelog/zstd').map((p) => p.pointId);
    // acl: its one stale point replaced by the backup's two versions, plus the feed switched.
    assert.equal(await feeds.apply('switch_to_backup', 'debian-changelog'), 1 + 2 + 1);
    assert.equal(source.activeProvider, 'backup');
    assert.deepEqual(index.versions('changelog/acl'), ['2.3.1-1', '2.3.1-3']);
    assert.deepEqual(
      [...index.points.values()].filter((p) => p.knowledgeId === 'changelog/zstd').map((p) => p.pointId),
      zstdPoints,
      'an id already in step is not rewritten',
    );
    const fresh = await feeds.freshness('changelog/acl');
    assert.equal(fresh?.feed_provider, 'backup');
    assert.equal(fresh?.feed?.version, '2.3.1-3');
    assert.equal(fresh?.indexed?.version, '2.3.1-3');
    // Switching to where it is already changes nothing.
    assert.equal(await feeds.apply('switch_to_backup', 'debian-changelog'), 0);
    await feeds.apply('switch_to_primary', 'debian-changelog');
    assert.deepEqual(index.versions('changelog/acl'), ['2.3.1-1']);
  });

  it('refresh re-ingests an index that fell behind its active feed, and no more', async () => {
    const source = new KnowledgeSource('debian-changelog', 0.9, new HistoryProvider(history), new HistoryProvider(history));
    const index = new MemoryIndex();
    const feeds = new KnowledgeFeeds({ sources: [source], index, knowledgeTime: () => NOW, now: () => NOW });
    await feeds.sync();
    // A point lost from the index (e.g. deleted): the feed still publishes it.
    const lost = [...index.points.values()].find((p) => p.version === '1.5.6-1')!;
    index.points.delete(lost.pointId as number);
    assert.equal((await feeds.freshness('changelog/zstd'))?.indexed?.version, '1.5.5-1');
    assert.equal(await feeds.apply('refresh', 'debian-changelog'), 2 + 1);
    assert.deepEqual(index.versions('changelog/zstd'), ['1.5.5-1', '1.5.6-1']);
    assert.deepEqual(feeds.activeFeeds(), { 'debian-changelog': 'primary' });
  });

  it('refuses an unknown source and a backup a source lacks, as RangeErrors (the route answers 400)', async () => {
    const lone = new KnowledgeSource('debian-changelog', 0.9, new HistoryProvider(history));
    const feeds = new KnowledgeFeeds({ sources: [lone], index: new MemoryIndex(), knowledgeTime: () => NOW });
    await assert.rejects(
      feeds.apply('switch_to_backup', 'debian-changelog'),
      (e: unknown) => e instanceof RangeError && /no backup/.test(e.message),
    );
    await assert.rejects(
      feeds.apply('refresh', 'apt-metadata'),
      (e: unknown) => e instanceof RangeError && /unknown knowledge source apt-metadata/.test(e.message),
    );
    assert.equal(lone.activeProvider, 'primary');
  });

  it('an id neither the feed nor the index knows has no freshness', async () => {
    const { feeds } = staleDeploy();
    assert.equal(await feeds.freshness('changelog/nope'), null);
  });
});

describe('GET /knowledge/{id} and /repair/knowledge-source over HTTP, as the sentinel and effector call them', () => {
  const TOKEN = 'knowledge-feeds-unit-test-token';

  async function serve() {
    const { index, feeds } = staleDeploy();
    await feeds.sync();
    const app = express();
    app.use(repairRoutes({ knowledgeSources: feeds, knowledge: feeds, bearerToken: TOKEN, instance: 'online' }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    return { index, feeds, server, baseUrl };
  }

  it('answers the contract schema through RagClient, advertises the feeds in /capabilities, and switches to the backup', async () => {
    const { server, baseUrl } = await serve();
    try {
      const client = ragClientWithHeaders(baseUrl, { authorization: `Bearer ${TOKEN}` }, 10_000);
      const before = await client.knowledgeFreshness('changelog/acl');
      assert.equal(before.feed_provider, 'primary');
      assert.equal(before.indexed?.version, '2.3.1-1');
      const caps = await client.capabilities();
      assert.ok(caps.repair_hooks.includes('knowledge_source'));
      assert.deepEqual(caps.knowledge_sources, ['debian-changelog']);
      assert.deepEqual(caps.active_versions?.knowledge_sources, { 'debian-changelog': 'primary' });
      const result = await client.knowledgeSource({ action: 'switch_to_backup', source: 'debian-changelog' });
      assert.equal(result.hook, 'knowledge_source');
      assert.equal(result.changed, 4);
      assert.deepEqual((await client.capabilities()).active_versions?.knowledge_sources, { 'debian-changelog': 'backup' });
      const after = await client.knowledgeFreshness('changelog/acl');
      assert.equal(after.feed_provider, 'backup');
      assert.equal(after.indexed?.version, '2.3.1-3');
    } finally {
      server.close();
    }
  });

  it('guards the lookup with the bearer token, answers 404 for an unknown id and 400 for an unknown source', async () => {
    const { server, baseUrl } = await serve();
    try {
      assert.equal((await fetch(`${baseUrl}/knowledge/changelog%2Facl`)).status, 401);
      const auth = { authorization: `Bearer ${TOKEN}` };
      const missing = await fetch(`${baseUrl}/knowledge/changelog%2Fnope`, { headers: auth });
      assert.equal(missing.status, 404);
      assert.match(((await missing.json()) as { error: string }).error, /changelog\/nope/);
      const unknown = await fetch(`${baseUrl}/repair/knowledge-source`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'switch_to_backup', source: 'apt-metadata' }),
      });
      assert.equal(unknown.status, 400);
      assert.match(((await unknown.json()) as { error: string }).error, /unknown knowledge source apt-metadata/);
    } finally {
      server.close();
    }
  });
});
