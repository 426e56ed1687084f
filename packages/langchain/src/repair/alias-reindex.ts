/**
 * Reindex as Qdrant's blue/green: build the knowledge into a new collection, check it holds every
 * document, then move the alias the retriever reads to it in one atomic alias update. The old
 * collection stays until the next reindex, so a rollback moves the alias back.
 */
import type { DocumentInterface } from '@langchain/core/documents';
import { Document } from '@langchain/core/documents';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { QdrantVectorStore } from '@langchain/qdrant';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { AliasedQdrantVectorStore } from '../aliased-qdrant-store.ts';
import { versionedMetadataOf } from '../versioned-metadata.ts';

export interface AliasReindexOptions {
  client: QdrantClient;
  /** The name the RAG reads (an alias, never a collection of its own). */
  alias: string;
  embeddings: EmbeddingsInterface;
  /** The knowledge as it should be indexed now: the RAG's own ingestion, with the versioned metadata. */
  load: () => Promise<DocumentInterface[]>;
}

export interface ReindexOutcome {
  collection: string;
  previous: string | null;
  points: number;
}

export class AliasReindex {
  private history: string[] = [];

  constructor(private readonly options: AliasReindexOptions) {}

  /** The store the retriever reads, through the alias. */
  store(): AliasedQdrantVectorStore {
    return new AliasedQdrantVectorStore(this.options.embeddings, { client: this.options.client, collectionName: this.options.alias });
  }

  /** The collection the alias points at now; null before the first build. */
  async current(): Promise<string | null> {
    const { aliases } = await this.options.client.getAliases();
    return aliases.find((a) => a.alias_name === this.options.alias)?.collection_name ?? null;
  }

  /** The alias and the collection it points at now (null before the first build). */
  async layout(): Promise<{ alias: string; collection: string | null }> {
    return { alias: this.options.alias, collection: await this.current() };
  }

  async reindex(): Promise<ReindexOutcome> {
    const collection = `${this.options.alias}--${new Date()
      .toISOString()
      .replace(/[-:.TZ]/g, '')
      .slice(0, 17)}`;
    const { points } = await this.build(collection);
    const previous = await this.current();
    await this.point(collection, previous !== null);
    if (previous !== null) this.history.push(previous);
    return { collection, previous, points };
  }

  /**
   * Blue/green for a caller that switches the alias itself (RAG Immune's effector: contract 1.3.0
   * `target_collection`): the whole knowledge into `collection`, a new one beside the live one; the
   * alias is not touched, so the caller can check the build before anyone reads it.
   */
  async reindexInto(collection: string): Promise<{ collection: string; points: number }> {
    if (collection === this.options.alias) throw new TargetCollectionError(`${collection} is the alias itself`);
    if ((await this.options.client.collectionExists(collection)).exists)
      throw new TargetCollectionError(`${collection} exists already: a build goes into a new collection`);
    return this.build(collection);
  }

  private async build(collection: string): Promise<{ collection: string; points: number }> {
    const { client, embeddings } = this.options;
    const documents = await this.options.load();
    // Refused before anything is built: a document without versions cannot be diagnosed later.
    for (const doc of documents) versionedMetadataOf(doc);
    // Point ids are Qdrant's own (UUIDs); the chunk id stays in the metadata.
    const points = documents.map((doc) => new Document({ pageContent: doc.pageContent, metadata: doc.metadata }));
    await QdrantVectorStore.fromDocuments(points, embeddings, { client, collectionName: collection });
    const { count } = await client.count(collection, { exact: true });
    if (count !== documents.length)
      throw new Error(`reindex into ${collection} holds ${count} of ${documents.length} documents; the alias was not moved`);
    return { collection, points: count };
  }

  /** Moves the alias back to the collection it pointed at before the last reindex. */
  async rollback(): Promise<{ collection: string; from: string | null }> {
    const previous = this.history.pop();
    if (previous === undefined) throw new Error(`no earlier collection to roll ${this.options.alias} back to`);
    const from = await this.current();
    await this.point(previous, true);
    return { collection: previous, from };
  }

  private async point(collection: string, replace: boolean): Promise<void> {
    const alias_name = this.options.alias;
    await this.options.client.updateCollectionAliases({
      actions: [...(replace ? [{ delete_alias: { alias_name } }] : []), { create_alias: { collection_name: collection, alias_name } }],
    });
  }
}

/** A target collection a blue/green build cannot go into (the caller's mistake: 409). */
export class TargetCollectionError extends Error {
  override readonly name = 'TargetCollectionError';
}
