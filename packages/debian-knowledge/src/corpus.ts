/**
 * The fixed Debian knowledge corpus: a committed snapshot of Debian's changelogs and apt metadata for
 * a fixed set of source packages (scripts/build-corpus.ts made it from the archive), so that every
 * machine, test, benchmark and demo answers from the same knowledge whatever the host has installed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { AptPackage } from './apt-metadata.ts';
import type { ChangelogEntry } from './debian-changelog.ts';

export const CORPUS_FORMAT = 'rag-immune/debian-corpus/v1';
export const DEFAULT_CORPUS_PATH = fileURLToPath(new URL('../corpus/debian-bookworm.jsonl.gz', import.meta.url));

export interface CorpusHeader {
  format: typeof CORPUS_FORMAT;
  distribution: string;
  built_at: string;
  /** Each suite's index date (its InRelease `Date:`), ISO. */
  suites: Record<string, string>;
  sources: number;
  max_entries_per_source: number;
  command: string;
}

/** An apt stanza as the corpus stores it: the date of its index as ISO text. */
export type CorpusAptStanza = Omit<AptPackage, 'listDate'> & { listDate: string };

export interface CorpusSource {
  source: string;
  /** The binary package whose changelog.Debian.gz was read. */
  binary: string;
  changelog: (Omit<ChangelogEntry, 'source' | 'date'> & { date: string })[];
  apt: CorpusAptStanza[];
}

export interface DebianCorpus {
  header: CorpusHeader;
  histories: Map<string, ChangelogEntry[]>;
  apt: AptPackage[];
}

const cache = new Map<string, DebianCorpus>();

/** Reads (once per path) and checks the corpus; a damaged or foreign file fails with its path. */
export function readCorpus(path = DEFAULT_CORPUS_PATH): DebianCorpus {
  const cached = cache.get(path);
  if (cached) return cached;
  let lines: string[];
  try {
    lines = gunzipSync(readFileSync(path)).toString('utf8').split('\n').filter(Boolean);
  } catch (error) {
    throw new Error(`Debian knowledge corpus ${path} cannot be read: ${(error as Error).message}`);
  }
  const header = JSON.parse(lines[0] ?? '{}') as CorpusHeader;
  if (header.format !== CORPUS_FORMAT)
    throw new Error(`Debian knowledge corpus ${path}: format ${String(header.format)}, expected ${CORPUS_FORMAT}`);
  const histories = new Map<string, ChangelogEntry[]>();
  const apt: AptPackage[] = [];
  for (const line of lines.slice(1)) {
    const source = JSON.parse(line) as CorpusSource;
    histories.set(
      source.source,
      source.changelog.map((entry) => ({ ...entry, source: source.source, date: new Date(entry.date) })),
    );
    for (const stanza of source.apt) apt.push({ ...stanza, listDate: new Date(stanza.listDate) });
  }
  if (histories.size !== header.sources)
    throw new Error(`Debian knowledge corpus ${path}: ${histories.size} sources, header says ${header.sources}`);
  const corpus = { header, histories, apt };
  cache.set(path, corpus);
  return corpus;
}
