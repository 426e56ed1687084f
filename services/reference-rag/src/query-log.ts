import { mkdirSync, writeFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';

export interface QueryLogLine {
  query: string;
  count: number;
  first_seen: string;
  last_seen: string;
}

/**
 * Counts the queries the RAG serves and writes them as JSONL (one distinct query per line, with its
 * count), the input the sentinel's probe selection reads. Written atomically (temp file + rename).
 */
export class QueryLog {
  private readonly counts = new Map<string, QueryLogLine>();
  private dirty = false;

  constructor(private readonly path: string | undefined) {
    if (path !== undefined) mkdirSync(dirname(path), { recursive: true });
  }

  record(query: string, at = new Date()): void {
    const key = query.trim();
    const line = this.counts.get(key);
    if (line === undefined) this.counts.set(key, { query: key, count: 1, first_seen: at.toISOString(), last_seen: at.toISOString() });
    else {
      line.count++;
      line.last_seen = at.toISOString();
    }
    this.dirty = true;
  }

  lines(): QueryLogLine[] {
    return [...this.counts.values()].sort((a, b) => b.count - a.count || a.query.localeCompare(b.query));
  }

  flush(): void {
    if (this.path === undefined || !this.dirty) return;
    const tmp = `${this.path}.tmp`;
    writeFileSync(
      tmp,
      this.lines()
        .map((line) => JSON.stringify(line))
        .join('\n') + '\n',
    );
    renameSync(tmp, this.path);
    this.dirty = false;
  }
}
