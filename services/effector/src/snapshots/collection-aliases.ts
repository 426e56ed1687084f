import type { QdrantClient } from '@qdrant/js-client-rest';
import { generationCreatedAt } from '@rag-immune/rag-contract';
import { copyCollection } from './collection-copy.ts';
import { restorePointsToPrune, type SnapshotRetentionPolicy } from './snapshot-retention.ts';

/** The alias no longer points where the swap expected: someone else switched it meanwhile. */
export class AliasConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AliasConflictError';
  }
}

/**
 * Qdrant's blue/green for the RAG's collection: which generation an alias points at, the one-request
 * atomic switch (POST /collections/aliases), and retention of
 * the generations a switch retired. A retired generation is the way back of the repair that retired
 * it, so it is kept like a snapshot: among the newest `keepLast`, younger than `keepWithinDays`, or
 * named by an action still in flight.
 */
export class CollectionAliases {
  constructor(
    private readonly qdrant: QdrantClient,
    readonly retention: SnapshotRetentionPolicy,
  ) {}

  /** The collection `alias` points at; null when `alias` is no alias (a plain collection or nothing). */
  async target(alias: string): Promise<string | null> {
    const { aliases } = await this.qdrant.getAliases();
    return aliases.find((a) => a.alias_name === alias)?.collection_name ?? null;
  }

  /** The collection's exact point count and vector parameters; null when it does not exist. */
  async describe(collection: string): Promise<{ points: number; vectors: unknown } | null> {
    if (!(await this.qdrant.collectionExists(collection)).exists) return null;
    const info = await this.qdrant.getCollection(collection);
    return { points: (await this.qdrant.count(collection, { exact: true })).count, vectors: info.config.params.vectors };
  }

  /**
   * Switches `alias` from `from` to `to` in one request: readers see the old generation or the new
   * one, never none. One `create_alias` on an existing alias re-points it, and fails before changing
   * anything when `to` is missing. The delete + create pair in one request is not that: Qdrant 1.18
   * applies the actions in order without rolling back, so a failed create leaves no alias at all
   * (seen in the contract suite). Refused when the alias has moved since `from` was read (Qdrant has
   * no compare-and-set on aliases, so this narrows the race to the one request).
   */
  async swap(alias: string, from: string, to: string): Promise<void> {
    const current = await this.target(alias);
    if (current !== from) throw new AliasConflictError(`alias ${alias} points at ${current ?? 'nothing'}, not ${from}: not switched`);
    await this.qdrant.updateCollectionAliases({ actions: [{ create_alias: { collection_name: to, alias_name: alias } }] });
    const after = await this.target(alias);
    if (after !== to) throw new AliasConflictError(`alias ${alias} points at ${after ?? 'nothing'} after the switch to ${to}`);
  }

  /** Copies every point of `source` (a collection or an alias) into the new collection `target`: a hookless rebuild's build. */
  async copy(source: string, target: string, signal?: AbortSignal): Promise<{ points: number }> {
    return copyCollection(this.qdrant, (await this.target(source)) ?? source, target, signal ? { signal } : {});
  }

  /** Deletes a generation nothing points at, its snapshots first (they outlive the collection in Qdrant). */
  async deleteGeneration(alias: string, collection: string): Promise<void> {
    if ((await this.target(alias)) === collection) throw new AliasConflictError(`${collection} is live behind ${alias}: not deleted`);
    for (const snapshot of await this.qdrant.listSnapshots(collection).catch(() => []))
      await this.qdrant.deleteSnapshot(collection, snapshot.name).catch(() => undefined);
    await this.qdrant.deleteCollection(collection);
  }

  /** Retired generations of `alias` the policy lets go (never the live one, never a protected one); deleted, oldest first. */
  async pruneRetired(alias: string, protectedNames: ReadonlySet<string>, now: number = Date.now()): Promise<string[]> {
    const live = await this.target(alias);
    const { collections } = await this.qdrant.getCollections();
    const retired = collections
      .map((c) => ({ id: c.name, createdAt: generationCreatedAt(alias, c.name)?.getTime() }))
      .filter((c): c is { id: string; createdAt: number } => c.createdAt !== undefined && c.id !== live);
    const doomed = restorePointsToPrune(retired, this.retention, now, protectedNames);
    for (const { id } of doomed) await this.deleteGeneration(alias, id);
    return doomed.map((d) => d.id);
  }
}
