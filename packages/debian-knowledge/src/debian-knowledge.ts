import { createHash } from 'node:crypto';
import { aptRecords, installedPackages, readAptPackages } from './apt-metadata.ts';
import { changelogRecords, readChangelogs, type ChangelogEntry } from './debian-changelog.ts';
import { chainValidity } from './knowledge-record.ts';
import { HistoryProvider, KnowledgeSource } from './knowledge-source.ts';

export interface DebianKnowledgeOptions {
  /** Use only this many source packages (a deterministic pseudo-random pick), e.g. for tests. */
  packages?: number;
  maxEntriesPerPackage?: number;
  trust?: Record<string, number>;
}

export const DEFAULT_SOURCE_TRUST: Record<string, number> = { 'debian-changelog': 0.9, 'apt-metadata': 0.7 };

const hashOrder = (name: string): string => createHash('sha1').update(name).digest('hex');

/**
 * The reference RAG's knowledge: real Debian text on this machine. `debian-changelog` (upload history
 * of every source package with a changelog.Debian.gz) and `apt-metadata` (the apt Packages indexes,
 * for the packages installed here). Each source's backup is a second provider over the same history
 * — in production it would be a mirror.
 */
export function loadDebianKnowledge(options: DebianKnowledgeOptions = {}): {
  sources: KnowledgeSource[];
  histories: Map<string, ChangelogEntry[]>;
} {
  let histories = readChangelogs({ maxEntriesPerPackage: options.maxEntriesPerPackage ?? 6 });
  if (options.packages !== undefined) {
    const picked = [...histories.keys()].sort((a, b) => hashOrder(a).localeCompare(hashOrder(b))).slice(0, options.packages);
    histories = new Map(picked.sort().map((name) => [name, histories.get(name)!]));
  }
  const installed = installedPackages();
  const wantedSources = new Set(histories.keys());
  const apt = readAptPackages((name) => installed.has(name)).filter((pkg) => wantedSources.has(pkg.source));
  const trust = { ...DEFAULT_SOURCE_TRUST, ...options.trust };
  const changelog = chainValidity(changelogRecords(histories));
  const metadata = chainValidity(aptRecords(apt, histories));
  return {
    histories,
    sources: [
      new KnowledgeSource('debian-changelog', trust['debian-changelog']!, new HistoryProvider(changelog), new HistoryProvider(changelog)),
      new KnowledgeSource('apt-metadata', trust['apt-metadata']!, new HistoryProvider(metadata), new HistoryProvider(metadata)),
    ],
  };
}
