/**
 * Everything a loop run creates on the shared stack lives under its namespace: Kafka topics
 * `<ns>.rag-…`, Elasticsearch indices and Qdrant collections `<ns>…`. Removing them afterwards
 * touches nothing of anyone else's.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { createKafka } from '@rag-immune/bus';
import type { StackEndpoints } from '@rag-immune/stack';

/** A fresh namespace: lowercase (Elasticsearch index names), short, unique. */
export function newNamespace(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`.toLowerCase();
}

export async function removeNamespace(endpoints: StackEndpoints, namespace: string): Promise<string[]> {
  const removed: string[] = [];
  const kafka = createKafka({ clientId: `loop-cleanup-${namespace}`, brokers: endpoints.kafkaBrokers });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${namespace}.`));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
    removed.push(...topics.map((t) => `topic ${t}`));
  } catch (error) {
    removed.push(`topics: ${(error as Error).message}`);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  const es = new Client({ node: endpoints.elasticsearchUrl });
  try {
    const indices = await es.cat.indices({ index: `${namespace}*`, format: 'json', expand_wildcards: 'all' });
    for (const index of indices) {
      if (index.index === undefined) continue;
      await es.indices.delete({ index: index.index, ignore_unavailable: true });
      removed.push(`index ${index.index}`);
    }
  } catch (error) {
    removed.push(`indices: ${(error as Error).message}`);
  } finally {
    await es.close();
  }
  const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
  try {
    const { collections } = await qdrant.getCollections();
    for (const { name } of collections.filter((c) => c.name.startsWith(namespace))) {
      // Snapshots outlive their collection in qdrant-local (and in Qdrant): remove them first.
      for (const snapshot of await qdrant.listSnapshots(name).catch(() => [])) {
        await qdrant.deleteSnapshot(name, snapshot.name).catch(() => undefined);
        removed.push(`snapshot ${snapshot.name}`);
      }
      await qdrant.deleteCollection(name);
      removed.push(`collection ${name}`);
    }
  } catch (error) {
    removed.push(`collections: ${(error as Error).message}`);
  }
  return removed;
}

/** Deletes every snapshot of these collections (the effector's, taken before its repairs). */
export async function removeSnapshots(endpoints: StackEndpoints, collections: string[]): Promise<void> {
  const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
  for (const name of collections)
    for (const snapshot of await qdrant.listSnapshots(name).catch(() => []))
      await qdrant.deleteSnapshot(name, snapshot.name).catch(() => undefined);
}
