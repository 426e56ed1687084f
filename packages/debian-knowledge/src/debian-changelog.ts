import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import type { KnowledgeRecord } from './knowledge-record.ts';

/** One entry of a Debian changelog: `pkg (version) dist; urgency=u` … ` -- Name <mail>  date`. */
export interface ChangelogEntry {
  source: string;
  version: string;
  distribution: string;
  urgency: string;
  changes: string[];
  uploader: string;
  uploaderEmail: string;
  date: Date;
}

const HEADER = /^([a-z0-9][a-z0-9+.-]+) \(([^)\s]+)\) ([^;]+);\s*urgency=(\w+)/;
const TRAILER = /^ -- (.+?) <([^>]*)>\s+(.+)$/;

/** Parses a changelog.Debian text; entries come newest first, as in the file. Malformed entries are skipped. */
export function parseChangelog(text: string): ChangelogEntry[] {
  const entries: ChangelogEntry[] = [];
  let current: Omit<ChangelogEntry, 'uploader' | 'uploaderEmail' | 'date'> | undefined;
  for (const line of text.split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      current = { source: header[1]!, version: header[2]!, distribution: header[3]!.trim(), urgency: header[4]!, changes: [] };
      continue;
    }
    if (current === undefined) continue;
    const trailer = TRAILER.exec(line);
    if (trailer) {
      const date = new Date(trailer[3]!.trim());
      if (!Number.isNaN(date.getTime())) entries.push({ ...current, uploader: trailer[1]!.trim(), uploaderEmail: trailer[2]!, date });
      current = undefined;
      continue;
    }
    const bullet = /^\s{2,}[*-]\s+(.*)$/.exec(line);
    if (bullet) current.changes.push(bullet[1]!.trim());
    else if (line.trim() !== '' && current.changes.length > 0 && !/^\s*\[/.test(line)) {
      current.changes[current.changes.length - 1] += ` ${line.trim()}`;
    }
  }
  return entries;
}

/** `2026-04-03` — the UTC calendar day, as answers and questions state release dates. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export interface ChangelogCorpusOptions {
  docRoot?: string;
  /** Keep at most this many newest entries per source package (older ones were superseded long ago). */
  maxEntriesPerPackage?: number;
}

/**
 * Reads every /usr/share/doc/<binary>/changelog.Debian.gz on this machine, one history per source
 * package (several binaries ship the same changelog; the longest copy wins).
 */
export function readChangelogs(options: ChangelogCorpusOptions = {}): Map<string, ChangelogEntry[]> {
  const root = options.docRoot ?? '/usr/share/doc';
  const bySource = new Map<string, ChangelogEntry[]>();
  for (const dir of readdirSync(root).sort()) {
    const path = join(root, dir, 'changelog.Debian.gz');
    if (!existsSync(path)) continue;
    let entries: ChangelogEntry[];
    try {
      entries = parseChangelog(gunzipSync(readFileSync(path)).toString('utf8'));
    } catch {
      continue;
    }
    const source = entries[0]?.source;
    if (source === undefined) continue;
    const kept = entries.filter((entry) => entry.source === source);
    if ((bySource.get(source)?.length ?? 0) < kept.length) bySource.set(source, kept);
  }
  const max = options.maxEntriesPerPackage ?? 6;
  for (const [source, entries] of bySource) bySource.set(source, entries.slice(0, max));
  return bySource;
}

/** Changelog entries as versioned knowledge: `changelog/<source>`, one version per upload. */
export function changelogRecords(histories: Map<string, ChangelogEntry[]>, source = 'debian-changelog'): KnowledgeRecord[] {
  const records: KnowledgeRecord[] = [];
  for (const [pkg, entries] of histories) {
    for (const entry of entries) {
      records.push({
        knowledgeId: `changelog/${pkg}`,
        docId: `${source}:${pkg}`,
        version: entry.version,
        source,
        validFrom: entry.date,
        validUntil: null,
        updatedAt: entry.date,
        fields: [
          ['Package', pkg],
          ['Version', entry.version],
          ['Released', utcDay(entry.date)],
          ['Uploaded by', entry.uploader],
          ['Distribution', entry.distribution],
          ['Urgency', entry.urgency],
        ],
        body: entry.changes.join(' '),
      });
    }
  }
  return records;
}
