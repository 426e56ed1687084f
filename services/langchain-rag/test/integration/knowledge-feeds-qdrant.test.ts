/**
 * The knowledge feeds on the stack's real Qdrant (1.18): an index built from a primary feed deployed
 * stale, the freshness lookup reading what the collection behind the alias holds, and the
 * switch to the backup feed rewriting only the stale id in that same collection (the alias not
 * moved). Embeddings are LangChain's SyntheticEmbeddings: this is about the index, not the model.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { SyntheticEmbeddings } from '@langchain/core/utils/testing';
import { HistoryProvider, KnowledgeSource, chainValidity, type KnowledgeRecord } from '@rag-immune/debian-knowledge';
import { AliasReindex } from '@rag-immune/langchain';
import { KnowledgeFreshness } from '@rag-immune/rag-contract';
import { endpoints } from '@rag-immune/test-kit/stack';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { KnowledgeFeeds, staleFeed } from '../../src/knowledge-feeds.ts';
import { QdrantFeedIndex } from '../../src/qdrant-feed-index.ts';

const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
const alias = `lcfeed-test-${randomUUID().slice(0, 8)}`;
const embeddings = new SyntheticEmbeddings({ vectorSize: 16 });

const record = (id: string, version: string, from: string): KnowledgeRecord => ({
  knowledgeId: id,
  docId: id,
  version,
  source: 'debian-changelog',
  validFrom: new Date(from),
  validUntil: null,
  updatedAt: new Date(from),
  fields: [
    ['Package', id.slice('changelog/'.length)],
    ['Version', version],
  ],
  body: `upload ${version}`,
});
const history = chainValidity([
  record('changelog/acl', '2.3.1-1', '2022-01-01T00:00:00Z'),
  record('changelog/acl', '2.3.1-3', '2024-09-01T00:00:00Z'),
  record('changelog/zstd', '1.5.5-1', '2023-03-01T00:00:00Z'),
  record('changelog/zstd', '1.5.6-1', '2025-02-01T00:00:00Z'),
]);

after(async () => {
  const { aliases } = await qdrant.getAliases();
  const collections = aliases.filter((a) => a.alias_name === alias).map((a) => a.collection_name);
  await qdrant.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: alias } }] }).catch(() => undefined);
  for (const collection of collections) await qdrant.deleteCollection(collection);
});

test(
  'a stale primary indexed behind an alias, seen by the freshness lookup and healed by the backup feed in place',
  { timeout: 60_000 },
  async () => {
    const source = new KnowledgeSource('debian-changelog', 0.9, new HistoryProvider(history), new HistoryProvider(history));
    source.wrapPrimary((inner) => staleFeed(inner, new Date('2024-01-01T00:00:00Z'), new Set(['changelog/acl'])));
    const reindex: AliasReindex = new AliasReindex({ client: qdrant, alias, embeddings, load: async () => feeds.documents() });
    const feeds: KnowledgeFeeds = new KnowledgeFeeds({
      sources: [source],
      index: new QdrantFeedIndex({ client: qdrant, embeddings, collection: async (): Promise<string | null> => reindex.current() }),
      knowledgeTime: () => new Date(),
    });
    const built = await reindex.reindex();
    assert.equal(built.points, 3, 'acl as of the stale snapshot (1 version) and zstd as published (2)');

    const stale = KnowledgeFreshness.parse(await feeds.freshness('changelog/acl'));
    assert.equal(stale.feed_provider, 'primary');
    assert.equal(stale.feed?.version, '2.3.1-1');
    assert.equal(stale.indexed?.version, '2.3.1-1');
    assert.ok(stale.indexed?.indexed_at !== undefined, 'the write time is stamped on every point');
    assert.equal(await feeds.freshness('changelog/nope'), null);
    // Already in step with its (stale) feed: nothing to rewrite.
    assert.deepEqual(await feeds.sync(), { upserted: 0, deleted: 0, knowledge_ids: 0 });

    const zstdBefore = (
      await new QdrantFeedIndex({ client: qdrant, embeddings, collection: () => reindex.current() }).held({ knowledgeId: 'changelog/zstd' })
    )
      .map((p) => p.pointId)
      .sort();
    assert.equal(await feeds.apply('switch_to_backup', 'debian-changelog'), 1 + 2 + 1);
    assert.equal(await reindex.current(), built.collection, 'the alias still points at the collection the effector snapshotted');
    assert.equal((await qdrant.count(built.collection, { exact: true })).count, 4);
    const healed = KnowledgeFreshness.parse(await feeds.freshness('changelog/acl'));
    assert.equal(healed.feed_provider, 'backup');
    assert.equal(healed.feed?.version, '2.3.1-3');
    assert.equal(healed.indexed?.version, '2.3.1-3');
    const zstdAfter = (
      await new QdrantFeedIndex({ client: qdrant, embeddings, collection: () => reindex.current() }).held({ knowledgeId: 'changelog/zstd' })
    )
      .map((p) => p.pointId)
      .sort();
    assert.deepEqual(zstdAfter, zstdBefore, 'an id in step with the feed is not rewritten');
    // Retrieval through the alias sees the backup's newest version.
    const hits = await reindex.store().similaritySearch('Package: acl | Version: 2.3.1-3', 4);
    assert.ok(hits.some((doc) => doc.metadata.chunk_id === 'changelog/acl@2.3.1-3#0'));
  },
);
