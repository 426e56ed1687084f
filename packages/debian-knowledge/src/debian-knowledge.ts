import { createHash } from 'node:crypto';
import { aptRecords, installedPackages, readAptPackages } from './apt-metadata.ts';
import { readCorpus } from './corpus.ts';
import { changelogRecords, readChangelogs, type ChangelogEntry } from './debian-changelog.ts';
import { chainValidity } from './knowledge-record.ts';
import { HistoryProvider, KnowledgeSource } from './knowledge-source.ts';

/** Where the knowledge comes from: the fixed committed corpus (default) or this machine's packages. */
export type KnowledgeOrigin = 'corpus' | 'host';

export interface DebianKnowledgeOptions {
  /** `corpus` (default): the same knowledge on every machine; `host`: /usr/share/doc and apt's lists here. */
  from?: KnowledgeOrigin;
  /** Another corpus file than the committed one (`from: 'corpus'` only). */
  corpusPath?: string;
  /** Use only this many source packages (a deterministic pseudo-random pick), e.g. for tests. */
  packages?: number;
  maxEntriesPerPackage?: number;
  trust?: Record<string, number>;
}

export const DEFAULT_SOURCE_TRUST: Record<string, number> = { 'debian-changelog': 0.9, 'apt-metadata': 0.7 };

/**
 * The order a subset is drawn in. Salted: the corpus itself was drawn by sha1 of the name, so the
 * first N by that same hash would be the packages its build drew first, not a fair sample of it.
 */
const hashOrder = (name: string): string => createHash('sha1').update(`subset:${name}`).digest('hex');

/**
 * The reference RAG's knowledge: real Debian text, by default from the fixed corpus (corpus.ts), or
 * read live from this machine. `debian-changelog` (the upload history of each source package) and
 * `apt-metadata` (apt Packages stanzas of its binaries). Each source's backup is a second provider
 * over the same history — in production it would be a mirror.
 */
export function loadDebianKnowledge(options: DebianKnowledgeOptions = {}): {
  sources: KnowledgeSource[];
  histories: Map<string, ChangelogEntry[]>;
} {
  const max = options.maxEntriesPerPackage ?? 6;
  const fromHost = options.from === 'host';
  const corpus = fromHost ? undefined : readCorpus(options.corpusPath);
  let histories = corpus
    ? new Map([...corpus.histories].map(([name, entries]) => [name, entries.slice(0, max)]))
    : readChangelogs({ maxEntriesPerPackage: max });
  if (options.packages !== undefined) {
    const picked = [...histories.keys()].sort((a, b) => hashOrder(a).localeCompare(hashOrder(b))).slice(0, options.packages);
    histories = new Map(picked.sort().map((name) => [name, histories.get(name)!]));
  }
  const wantedSources = new Set(histories.keys());
  const apt = (corpus ? corpus.apt : hostAptPackages()).filter((pkg) => wantedSources.has(pkg.source));
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

function hostAptPackages(): ReturnType<typeof readAptPackages> {
  const installed = installedPackages();
  return readAptPackages((name) => installed.has(name));
}
