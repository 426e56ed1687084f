import { randomUUID } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import { date, ensureIndex, kw } from './es.ts';

export interface AuditEntry {
  actor: string;
  command: string;
  target: string | null;
  outcome: 'ok' | 'refused' | 'error' | 'dry_run';
  detail?: Record<string, unknown>;
}

/** Every manual command and grant decision, append-only in Elasticsearch (never a token). */
export class AuditLog {
  constructor(
    private readonly es: Client,
    readonly index: string,
  ) {}

  init(): Promise<void> {
    return ensureIndex(this.es, this.index, { at: date, actor: kw, command: kw, target: kw, outcome: kw });
  }

  async record(entry: AuditEntry): Promise<void> {
    await this.es.index({
      index: this.index,
      id: randomUUID(),
      document: { at: new Date().toISOString(), ...entry, detail: JSON.stringify(entry.detail ?? {}) },
      refresh: true,
    });
  }

  async list(size = 200): Promise<unknown[]> {
    const r = await this.es.search({ index: this.index, size, sort: [{ at: 'desc' }], ignore_unavailable: true });
    return r.hits.hits.map((h) => h._source);
  }
}
