/**
 * Builds the fixed Debian knowledge corpus (corpus/debian-bookworm.jsonl.gz) from Debian's archive,
 * independent of what this machine has installed:
 *   npx tsx packages/debian-knowledge/scripts/build-corpus.ts [--sources 760] [--max-deb-kib 400]
 *
 * 1. Reads the apt `Packages` indexes (run `apt-get update` first), picks source packages in a fixed
 *    pseudo-random order (sha1 of the name) whose smallest amd64/all binary is small, and downloads
 *    that binary with `apt-get download` (Debian's own mirror, the one registry reachable here).
 * 2. Takes `usr/share/doc/<binary>/changelog.Debian.gz` out of each .deb (a binary whose doc folder is
 *    a link to another package's has none: the next binary of the source is tried, then the source
 *    is dropped), keeping the newest MAX_ENTRIES uploads.
 * 3. Keeps the apt stanzas of up to three binaries per source, from every suite (bookworm,
 *    -updates, -security: several versions per package).
 * Writes the corpus (gzip JSON lines: a header, then one line per source) and corpus/sources.tsv
 * (what was downloaded, with its sha256). Needs network to the Debian mirror; the result is committed.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync, gunzipSync } from 'node:zlib';
import { aptPackageOf, parseDeb822 } from '../src/apt-metadata.ts';
import { CORPUS_FORMAT, type CorpusAptStanza, type CorpusHeader, type CorpusSource } from '../src/corpus.ts';
import { parseChangelog } from '../src/debian-changelog.ts';

const { values } = parseArgs({
  options: {
    sources: { type: 'string', default: '760' },
    'changing-share': { type: 'string', default: '0.35' },
    'max-deb-kib': { type: 'string', default: '400' },
    cache: { type: 'string', default: join(process.env.HOME ?? '/tmp', '.cache/rag-immune-tools/debian-corpus-debs') },
    lists: { type: 'string', default: '/var/lib/apt/lists' },
  },
});
const WANTED = Number(values.sources);
const MAX_DEB_BYTES = Number(values['max-deb-kib']) * 1024;
const MAX_ENTRIES = 8;
const MAX_CHANGE_CHARS = 1200;
const corpusDir = fileURLToPath(new URL('../corpus/', import.meta.url));

interface IndexStanza extends CorpusAptStanza {
  size: number;
  filename: string;
  architecture: string;
  suite: string;
}

const hashOrder = (name: string): string => createHash('sha1').update(name).digest('hex');

function readIndexes(): { stanzas: IndexStanza[]; suites: Record<string, string> } {
  const stanzas: IndexStanza[] = [];
  const suites: Record<string, string> = {};
  for (const file of readdirSync(values.lists!)
    .filter((name) => /_Packages(\.(lz4|gz|xz|zst))?$/.test(name))
    .sort()) {
    const path = join(values.lists!, file);
    const text = file.endsWith('_Packages')
      ? readFileSync(path, 'utf8')
      : execFileSync('/usr/lib/apt/apt-helper', ['cat-file', path], { maxBuffer: 1 << 30, encoding: 'utf8' });
    const release = join(values.lists!, file.replace(/_[^_]+_binary-[^_]+_Packages.*$/, '_InRelease'));
    const date = existsSync(release) ? (/^Date: (.+)$/m.exec(readFileSync(release, 'utf8'))?.[1] ?? '') : '';
    const suite = /_dists_([^_]+)_/.exec(file)?.[1] ?? file;
    suites[suite] = new Date(date || 0).toISOString();
    for (const stanza of parseDeb822(text)) {
      const pkg = aptPackageOf(stanza, new Date(suites[suite]!));
      if (pkg === undefined) continue;
      stanzas.push({
        ...pkg,
        listDate: suites[suite]!,
        size: Number(stanza.get('Size') ?? '0'),
        filename: stanza.get('Filename') ?? '',
        architecture: stanza.get('Architecture') ?? '',
        suite,
      });
    }
  }
  return { stanzas, suites };
}

function changelogOf(deb: string, binary: string): string | undefined {
  try {
    const tar = execFileSync('dpkg-deb', ['--fsys-tarfile', deb], { maxBuffer: 1 << 30 });
    const gz = execFileSync('tar', ['-xO', `./usr/share/doc/${binary}/changelog.Debian.gz`], { input: tar, maxBuffer: 1 << 28 });
    return gunzipSync(gz).toString('utf8');
  } catch {
    return undefined;
  }
}

function download(binaries: { package: string; version: string }[]): void {
  const missing = binaries.filter((b) => debPath(b) === undefined);
  for (let i = 0; i < missing.length; i += 80) {
    const batch = missing.slice(i, i + 80).map((b) => `${b.package}=${b.version}`);
    try {
      execFileSync('apt-get', ['download', '-qq', ...batch], { cwd: values.cache!, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch {
      // One unavailable version fails the batch: fetch its members one by one.
      for (const one of batch) {
        try {
          execFileSync('apt-get', ['download', '-qq', one], { cwd: values.cache!, stdio: ['ignore', 'ignore', 'ignore'] });
        } catch {
          /* left out below */
        }
      }
    }
  }
}

function debPath(b: { package: string; version: string }): string | undefined {
  // apt-get download names files <pkg>_<version with ':' as %3a>_<arch>.deb
  const prefix = `${b.package}_${b.version.replace(/:/g, '%3a')}_`;
  const file = readdirSync(values.cache!).find((name) => name.startsWith(prefix) && name.endsWith('.deb'));
  return file === undefined ? undefined : join(values.cache!, file);
}

mkdirSync(values.cache!, { recursive: true });
mkdirSync(corpusDir, { recursive: true });
const { stanzas, suites } = readIndexes();
const bySource = new Map<string, IndexStanza[]>();
for (const stanza of stanzas) {
  if (stanza.architecture !== 'amd64' && stanza.architecture !== 'all') continue;
  const list = bySource.get(stanza.source) ?? [];
  list.push(stanza);
  bySource.set(stanza.source, list);
}
// Knowledge that changes: sources with an upload in -security or -updates (newer than the release),
// a fixed share of the corpus, so that a frozen baseline and the online knowledge differ somewhere.
const changing = new Set(stanzas.filter((s) => /-(security|updates)$/.test(s.suite)).map((s) => s.source));
const byHash = (a: string, b: string) => hashOrder(a).localeCompare(hashOrder(b));
const tiers: [string[], number][] = [
  [[...changing].filter((s) => bySource.has(s)).sort(byHash), Math.round(WANTED * Number(values['changing-share']))],
  [[...bySource.keys()].filter((s) => !changing.has(s)).sort(byHash), WANTED],
];

const picked: CorpusSource[] = [];
const provenance: string[] = ['source\tbinary\tversion\tdeb_sha256'];
for (const [order, target] of tiers) pickFrom(order, target);

function pickFrom(order: string[], target: number): void {
  for (let start = 0; start < order.length && picked.length < target;) {
    // A slice of sources in the fixed order; each source's binaries smallest first (newest version of each).
    const slice = order.slice(start, start + Math.max(40, Math.ceil((target - picked.length) * 1.3)));
    start += slice.length;
    const candidates = new Map<string, IndexStanza[]>();
    for (const source of slice) {
      const newest = new Map<string, IndexStanza>();
      for (const s of bySource.get(source)!) {
        const seen = newest.get(s.package);
        if (seen === undefined || execCompare(s.version, seen.version) > 0) newest.set(s.package, s);
      }
      const small = [...newest.values()]
        .filter((s) => s.size > 0 && s.size <= MAX_DEB_BYTES)
        .sort((a, b) => a.size - b.size || a.package.localeCompare(b.package));
      if (small.length > 0) candidates.set(source, small.slice(0, 3));
    }
    // Tries the smallest binary of every source first, the next one only where that had no changelog.
    const found = new Map<string, { binary: IndexStanza; deb: string; text: string }>();
    for (let attempt = 0; attempt < 3; attempt++) {
      const tries = [...candidates].filter(([source]) => !found.has(source)).flatMap(([, list]) => list.slice(attempt, attempt + 1));
      download(tries);
      for (const binary of tries) {
        const deb = debPath(binary);
        const text = deb === undefined ? undefined : changelogOf(deb, binary.package);
        if (deb === undefined || text === undefined) continue;
        if (parseChangelog(text).filter((entry) => entry.source === binary.source).length >= 2)
          found.set(binary.source, { binary, deb, text });
      }
    }
    for (const source of slice) {
      if (picked.length >= target) break;
      const hit = found.get(source);
      if (hit === undefined) continue;
      const { binary, deb, text } = hit;
      const entries = parseChangelog(text).filter((entry) => entry.source === source);
      const binaries = [...new Set(bySource.get(source)!.map((x) => x.package))].filter((p) => p !== binary.package).sort();
      const kept = new Set([binary.package, ...binaries.slice(0, 2)]);
      const apt = bySource
        .get(source)!
        .filter((s) => kept.has(s.package))
        .map(({ size: _size, filename: _filename, architecture: _arch, suite: _suite, ...rest }) => rest);
      picked.push({
        source,
        binary: binary.package,
        changelog: entries.slice(0, MAX_ENTRIES).map((entry) => ({
          version: entry.version,
          distribution: entry.distribution,
          urgency: entry.urgency,
          changes: trimChanges(entry.changes),
          uploader: entry.uploader,
          uploaderEmail: entry.uploaderEmail,
          date: entry.date.toISOString(),
        })),
        apt: dedupe(apt),
      });
      provenance.push(`${source}\t${binary.package}\t${binary.version}\t${createHash('sha256').update(readFileSync(deb)).digest('hex')}`);
    }
    process.stderr.write(`build-corpus: ${picked.length}/${WANTED} sources\n`);
  }
}

picked.sort((a, b) => a.source.localeCompare(b.source));
const header: CorpusHeader = {
  format: CORPUS_FORMAT,
  distribution: 'debian bookworm (main, -updates, -security), amd64',
  built_at: new Date().toISOString(),
  suites,
  sources: picked.length,
  max_entries_per_source: MAX_ENTRIES,
  command: `npx tsx packages/debian-knowledge/scripts/build-corpus.ts --sources ${WANTED} --changing-share ${values['changing-share']} --max-deb-kib ${values['max-deb-kib']}`,
};
const lines = [JSON.stringify(header), ...picked.map((source) => JSON.stringify(source))].join('\n') + '\n';
writeFileSync(join(corpusDir, 'debian-bookworm.jsonl.gz'), gzipSync(lines, { level: 9 }));
writeFileSync(join(corpusDir, 'sources.tsv'), provenance.join('\n') + '\n');
process.stderr.write(`build-corpus: wrote ${picked.length} sources to ${join(corpusDir, 'debian-bookworm.jsonl.gz')}\n`);

function trimChanges(changes: string[]): string[] {
  const out: string[] = [];
  let used = 0;
  for (const change of changes) {
    if (used >= MAX_CHANGE_CHARS) break;
    const kept = change.slice(0, MAX_CHANGE_CHARS - used);
    out.push(kept);
    used += kept.length;
  }
  return out;
}

function dedupe(apt: CorpusAptStanza[]): CorpusAptStanza[] {
  const seen = new Map<string, CorpusAptStanza>();
  for (const stanza of apt) {
    const key = `${stanza.package}@${stanza.version}`;
    const previous = seen.get(key);
    if (previous === undefined || previous.listDate > stanza.listDate) seen.set(key, stanza);
  }
  return [...seen.values()].sort((a, b) => a.package.localeCompare(b.package) || a.listDate.localeCompare(b.listDate));
}

/** Debian version order, by dpkg itself (the one implementation everyone agrees on). */
function execCompare(a: string, b: string): number {
  if (a === b) return 0;
  try {
    execFileSync('dpkg', ['--compare-versions', a, 'gt', b], { stdio: 'ignore' });
    return 1;
  } catch {
    return -1;
  }
}
