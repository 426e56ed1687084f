/**
 * A knowledge source with a primary and a backup store: the retriever asks `store()` on every call,
 * so switching (the knowledge_source repair) takes effect on the next query; `refresh` is the RAG's
 * own re-ingest of the source, when it has one.
 */
import type { VectorStoreInterface } from '@langchain/core/vectorstores';

export interface SwitchableSource {
  primary: VectorStoreInterface;
  backup?: VectorStoreInterface;
  refresh?: () => Promise<number>;
}

export class KnowledgeSourceSwitch {
  private readonly active = new Map<string, 'primary' | 'backup'>();

  constructor(private readonly sources: Readonly<Record<string, SwitchableSource>>) {
    for (const name of Object.keys(sources)) this.active.set(name, 'primary');
  }

  get names(): string[] {
    return Object.keys(this.sources);
  }

  activeFeeds(): Record<string, string> {
    return Object.fromEntries(this.active);
  }

  store(name: string): VectorStoreInterface {
    const source = this.source(name);
    return this.active.get(name) === 'backup' ? source.backup! : source.primary;
  }

  /** Applies a knowledge_source repair; returns what changed (0 when already so). */
  async apply(action: 'refresh' | 'switch_to_backup' | 'switch_to_primary', name: string): Promise<number> {
    const source = this.source(name);
    if (action === 'refresh') {
      if (source.refresh === undefined) throw new RangeError(`source ${name} has no refresh`);
      return source.refresh();
    }
    const to = action === 'switch_to_backup' ? 'backup' : 'primary';
    if (to === 'backup' && source.backup === undefined) throw new RangeError(`source ${name} has no backup`);
    const changed = this.active.get(name) === to ? 0 : 1;
    this.active.set(name, to);
    return changed;
  }

  private source(name: string): SwitchableSource {
    const source = this.sources[name];
    if (source === undefined) throw new RangeError(`unknown knowledge source ${name}: have ${this.names.join(', ')}`);
    return source;
  }
}
