import { publishedBy, type KnowledgeRecord } from './knowledge-record.ts';

/** Where a source's records come from: its primary feed, or a backup (a mirror) when the primary fails. */
export interface KnowledgeProvider {
  /** The source's records as published by time t (later versions unknown). */
  recordsPublishedBy(t: Date): KnowledgeRecord[];
}

/** A provider over a fixed version history: the real files read once at start-up. */
export class HistoryProvider implements KnowledgeProvider {
  constructor(private readonly history: KnowledgeRecord[]) {}
  recordsPublishedBy(t: Date): KnowledgeRecord[] {
    return publishedBy(this.history, t);
  }
}

/**
 * A named knowledge source with a trust weight, a primary provider and an optional backup. A fault
 * may wrap the primary (a feed that stopped updating); switching to the backup routes around it.
 */
export class KnowledgeSource {
  private wrapper: ((inner: KnowledgeProvider) => KnowledgeProvider) | undefined;
  private active: 'primary' | 'backup' = 'primary';

  constructor(
    readonly name: string,
    readonly trust: number,
    private readonly primary: KnowledgeProvider,
    private readonly backup?: KnowledgeProvider,
  ) {}

  get activeProvider(): 'primary' | 'backup' {
    return this.active;
  }

  get hasBackup(): boolean {
    return this.backup !== undefined;
  }

  use(provider: 'primary' | 'backup'): void {
    if (provider === 'backup' && this.backup === undefined) throw new Error(`knowledge source ${this.name} has no backup`);
    this.active = provider;
  }

  /** Installs (or with undefined removes) a fault around the primary provider. */
  wrapPrimary(wrapper: ((inner: KnowledgeProvider) => KnowledgeProvider) | undefined): void {
    this.wrapper = wrapper;
  }

  recordsPublishedBy(t: Date): KnowledgeRecord[] {
    if (this.active === 'backup' && this.backup !== undefined) return this.backup.recordsPublishedBy(t);
    return (this.wrapper ? this.wrapper(this.primary) : this.primary).recordsPublishedBy(t);
  }
}
