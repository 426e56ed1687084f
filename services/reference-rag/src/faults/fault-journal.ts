import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface JournalEntry {
  /** RFC 3339 UTC with milliseconds: detection time is measured from here. */
  at: string;
  action: 'inject' | 'undo';
  kind: string;
  mode?: string;
  instance: string;
  affected_knowledge_ids: string[] | null;
  detail?: Record<string, unknown>;
}

/** Append-only record of every fault injection and undo: a JSONL file plus the in-memory tail for the API. */
export class FaultJournal {
  private readonly entries: JournalEntry[] = [];

  constructor(private readonly path: string | undefined) {
    if (path !== undefined) mkdirSync(dirname(path), { recursive: true });
  }

  record(entry: Omit<JournalEntry, 'at'>, at = new Date()): JournalEntry {
    const full = { at: at.toISOString(), ...entry };
    this.entries.push(full);
    if (this.entries.length > 10_000) this.entries.shift();
    if (this.path !== undefined) appendFileSync(this.path, `${JSON.stringify(full)}\n`);
    return full;
  }

  list(): JournalEntry[] {
    return [...this.entries];
  }
}
