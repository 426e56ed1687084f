import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { utcDay, type ChangelogEntry } from './debian-changelog.ts';
import type { KnowledgeRecord } from './knowledge-record.ts';

/** One stanza of an apt `Packages` index (the fields the knowledge uses). */
export interface AptPackage {
  package: string;
  version: string;
  source: string;
  section: string;
  installedSizeKiB: number;
  maintainer: string;
  description: string;
  /** The `Date:` of the index (its InRelease) the stanza came from. */
  listDate: Date;
}

/** Parses deb822 stanzas; continuation lines are folded into the previous field. */
export function parseDeb822(text: string): Map<string, string>[] {
  const stanzas: Map<string, string>[] = [];
  let current = new Map<string, string>();
  let last: string | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current.size > 0) stanzas.push(current);
      current = new Map();
      last = undefined;
    } else if (/^\s/.test(line) && last !== undefined) {
      current.set(last, `${current.get(last) ?? ''}\n${line.trim()}`);
    } else {
      const colon = line.indexOf(':');
      if (colon > 0) {
        last = line.slice(0, colon);
        current.set(last, line.slice(colon + 1).trim());
      }
    }
  }
  if (current.size > 0) stanzas.push(current);
  return stanzas;
}

/** Names of the packages installed on this machine (dpkg status, `install ok installed`). */
export function installedPackages(statusPath = '/var/lib/dpkg/status'): Set<string> {
  const names = new Set<string>();
  for (const stanza of parseDeb822(readFileSync(statusPath, 'utf8'))) {
    if (stanza.get('Status')?.endsWith(' installed')) names.add(stanza.get('Package') ?? '');
  }
  return names;
}

/**
 * Reads the apt `Packages` indexes under /var/lib/apt/lists (compressed ones through apt-helper, which
 * knows every compressor apt uses), keeping only the packages `keep` accepts.
 */
export function readAptPackages(keep: (name: string) => boolean, listsDir = '/var/lib/apt/lists'): AptPackage[] {
  const out: AptPackage[] = [];
  const files = readdirSync(listsDir).filter((name) => /_Packages(\.(lz4|gz|xz|zst))?$/.test(name));
  for (const file of files.sort()) {
    const path = join(listsDir, file);
    const text = file.endsWith('_Packages')
      ? readFileSync(path, 'utf8')
      : execFileSync('/usr/lib/apt/apt-helper', ['cat-file', path], { maxBuffer: 1 << 30, encoding: 'utf8' });
    const listDate = releaseDate(listsDir, file);
    for (const stanza of parseDeb822(text)) {
      const pkg = aptPackageOf(stanza, listDate);
      if (pkg !== undefined && keep(pkg.package)) out.push(pkg);
    }
  }
  return out;
}

/** The fields the knowledge uses of one `Packages` stanza (undefined: no Package field). */
export function aptPackageOf(stanza: Map<string, string>, listDate: Date): AptPackage | undefined {
  const name = stanza.get('Package');
  if (name === undefined) return undefined;
  return {
    package: name,
    version: stanza.get('Version') ?? '',
    source: (stanza.get('Source') ?? name).split(' ')[0]!,
    section: stanza.get('Section') ?? 'unknown',
    installedSizeKiB: Number(stanza.get('Installed-Size') ?? '0'),
    maintainer: stanza.get('Maintainer') ?? '',
    description: stanza.get('Description') ?? '',
    listDate,
  };
}

function releaseDate(listsDir: string, packagesFile: string): Date {
  // deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4 → …_dists_bookworm_InRelease
  const release = packagesFile.replace(/_[^_]+_binary-[^_]+_Packages.*$/, '_InRelease');
  const path = join(listsDir, release);
  if (existsSync(path)) {
    const date = /^Date: (.+)$/m.exec(readFileSync(path, 'utf8'))?.[1];
    if (date !== undefined && !Number.isNaN(new Date(date).getTime())) return new Date(date);
  }
  return new Date(0);
}

/** Strips a binNMU suffix (`+b1`): a binary rebuild has its source version's changelog entry. */
const sourceVersion = (version: string): string => version.replace(/\+b\d+$/, '');

/**
 * apt metadata as versioned knowledge: `apt/<package>`, one version per distinct package version.
 * A version becomes valid when its source upload happened (the changelog date), or, when the
 * changelog on this machine does not list it, when the index that carries it was published.
 */
export function aptRecords(packages: AptPackage[], histories: Map<string, ChangelogEntry[]>, source = 'apt-metadata'): KnowledgeRecord[] {
  const seen = new Map<string, KnowledgeRecord>();
  for (const pkg of packages) {
    const key = `${pkg.package}@${pkg.version}`;
    const upload = histories.get(pkg.source)?.find((entry) => entry.version === sourceVersion(pkg.version));
    const validFrom = upload?.date ?? pkg.listDate;
    const previous = seen.get(key);
    if (previous !== undefined && previous.validFrom.getTime() <= validFrom.getTime()) continue;
    const summary = pkg.description.split('\n')[0] ?? '';
    const long = pkg.description
      .split('\n')
      .slice(1)
      .join(' ')
      .replace(/\s\.\s/g, ' ');
    seen.set(key, {
      knowledgeId: `apt/${pkg.package}`,
      docId: `${source}:${pkg.package}`,
      version: pkg.version,
      source,
      validFrom,
      validUntil: null,
      updatedAt: pkg.listDate,
      fields: [
        ['Package', pkg.package],
        ['Version', pkg.version],
        ['Source', pkg.source],
        ['Section', pkg.section],
        ['Installed-Size', `${pkg.installedSizeKiB} KiB`],
        ['Maintainer', pkg.maintainer],
        ['Summary', summary],
        ['Available since', utcDay(validFrom)],
      ],
      body: long.slice(0, 400),
    });
  }
  return [...seen.values()];
}
