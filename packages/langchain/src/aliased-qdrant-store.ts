import { QdrantVectorStore } from '@langchain/qdrant';

/**
 * A QdrantVectorStore over a collection alias. @langchain/qdrant's ensureCollection looks for the
 * name among collections only and would try to create a collection named like the alias; the
 * alias resolves to the collection a reindex built, so there is nothing to create.
 */
export class AliasedQdrantVectorStore extends QdrantVectorStore {
  override async ensureCollection(): Promise<void> {
    const { aliases } = await this.client.getAliases();
    if (aliases.some((alias) => alias.alias_name === this.collectionName)) return;
    await super.ensureCollection();
  }
}
