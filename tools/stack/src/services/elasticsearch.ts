import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fetchArtifact } from '../maven-artifacts.ts';
import type { StackContext, StackService } from '../service.ts';
import { ensureSystemUser } from '../unprivileged.ts';

const execFileAsync = promisify(execFile);

/**
 * Elastic publishes no full distribution to Maven Central after 6.8, only this "integ-test"
 * zip: server + x-pack-core/-security + transport-netty4 + apm. It has no analysis-common
 * (language analyzers), painless, reindex (delete/update_by_query), ingest, ILM or data streams;
 * the `standard` analyzer, BM25, bool/term/match, sorting and the core aggregations (terms,
 * date_histogram, avg, cardinality, percentiles...) are in the server jar and work.
 */
const DISTRIBUTION = { groupId: 'org.elasticsearch.distribution.integ-test-zip', artifactId: 'elasticsearch', type: 'zip' };

/**
 * Where Elasticsearch's install, config, data and logs live: the service folder itself, or,
 * when the checkout sits below a folder the ES user cannot enter (e.g. /root, mode 700), a
 * folder under /var/lib that `relocatedRoot` links to from the service folder.
 */
function esRoot(ctx: StackContext): string {
  const link = join(ctx.serviceDir, RELOCATED_LINK);
  return existsSync(link) ? realpathSync(link) : ctx.serviceDir;
}

const RELOCATED_LINK = 'relocated-root';

async function relocateIfUnreachable(ctx: StackContext, user: string): Promise<void> {
  if (!runsAsRoot() || existsSync(join(ctx.serviceDir, RELOCATED_LINK))) return;
  try {
    await execFileAsync('runuser', ['-u', user, '--', 'test', '-x', ctx.serviceDir]);
    return;
  } catch {
    // Unreachable for the ES user: relocate below.
  }
  const target = join('/var/lib/rag-immune-stack', createHash('sha256').update(ctx.repoRoot).digest('hex').slice(0, 16), 'elasticsearch');
  await mkdir(target, { recursive: true, mode: 0o755 });
  await symlink(target, join(ctx.serviceDir, RELOCATED_LINK));
  ctx.log(`elasticsearch: ${ctx.serviceDir} is not reachable for user ${user}; installing and running from ${target}`);
}

function paths(ctx: StackContext) {
  const { version } = ctx.config.elasticsearch;
  const root = esRoot(ctx);
  const home = join(root, `elasticsearch-${version}`);
  return {
    downloads: join(root, 'downloads'),
    home,
    bin: join(home, 'bin', 'elasticsearch'),
    installedMarker: join(home, '.rag-immune-complete'),
    config: join(root, 'config'),
    data: join(root, 'data'),
    logs: join(root, 'logs'),
    tmp: join(root, 'tmp'),
  };
}

function parseVersion(version: string): { major: number; minor: number } {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return { major, minor };
}

/**
 * Until 8.7 GET / (the client's ping()/info()) is served by the server jar; later versions moved
 * it to the `rest-root` module, which the integ-test zip does not contain (405 there).
 */
export function hasRootEndpoint(version: string): boolean {
  const { major, minor } = parseVersion(version);
  return major < 8 || (major === 8 && minor <= 7);
}

/**
 * Java majors this Elasticsearch runs on. ES 8.0-8.17 need the SecurityManager, which Java 24
 * removed; 8.18+ replaced it with "entitlements" and run on 24+; ES 9 needs 21+.
 */
export function supportedJavaMajors(version: string): { min: number; max: number } {
  const { major, minor } = parseVersion(version);
  if (major >= 9) return { min: 21, max: Number.POSITIVE_INFINITY };
  if (major === 8) return { min: 17, max: minor >= 18 ? Number.POSITIVE_INFINITY : 23 };
  return { min: 11, max: 17 };
}

/** Major version from a JDK's `release` file (JAVA_VERSION="17.0.15"), undefined if unreadable. */
async function jdkMajor(javaHome: string): Promise<number | undefined> {
  try {
    const release = await readFile(join(javaHome, 'release'), 'utf8');
    const match = /^JAVA_VERSION="(?:1\.)?(\d+)/m.exec(release);
    return match?.[1] ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * ES_JAVA_HOME for this version: the configured one, else the newest supported JDK among
 * JAVA_HOME and /usr/lib/jvm/*. Set explicitly because the zip bundles no JDK and the default
 * java may be one this version cannot run on (Java 25 + ES 8.7 dies on the SecurityManager).
 */
async function resolveJavaHome(ctx: StackContext): Promise<string> {
  const { version, javaHome } = ctx.config.elasticsearch;
  if (javaHome) return javaHome;
  const { min, max } = supportedJavaMajors(version);
  // Debian links one JDK under several names; realpath collapses them to one canonical path.
  const candidates = new Set<string>();
  const consider = async (dir: string) => candidates.add(await realpath(dir).catch(() => dir));
  if (process.env['JAVA_HOME']) await consider(process.env['JAVA_HOME']);
  for (const root of ['/usr/lib/jvm', '/opt/java']) {
    const entries = await readdir(root).catch(() => [] as string[]);
    for (const entry of entries.sort()) await consider(join(root, entry));
  }
  let best: { home: string; major: number } | undefined;
  for (const home of candidates) {
    if (!existsSync(join(home, 'bin', 'java'))) continue;
    const major = await jdkMajor(home);
    if (major === undefined || major < min || major > max) continue;
    if (!best || major > best.major) best = { home, major };
  }
  if (!best) {
    const range = Number.isFinite(max) ? `${min}-${max}` : `${min}+`;
    throw new Error(
      `elasticsearch ${version} needs Java ${range}; none found in JAVA_HOME or /usr/lib/jvm. ` +
        `Install one (apt-get install -y openjdk-17-jdk-headless) or set STACK_ELASTICSEARCH_JAVA_HOME.`,
    );
  }
  return best.home;
}

/** Elasticsearch exits at startup when run as root, so as root we switch to a system user. */
function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

async function unzip(zip: string, into: string): Promise<void> {
  try {
    await execFileAsync('unzip', ['-q', '-o', zip, '-d', into], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('unzip is not installed; install it with: apt-get install -y unzip');
    }
    throw error;
  }
}

function elasticsearchYml(ctx: StackContext, p: ReturnType<typeof paths>, hasSecurity: boolean): string {
  const { host } = ctx.config;
  const { port, transportPort } = ctx.config.elasticsearch;
  return `# Generated by tools/stack on each start; edit tools/stack/src/services/elasticsearch.ts instead.
cluster.name: rag-immune-local
node.name: rag-immune-es
# One node, loopback only: no discovery, and the bootstrap checks (vm.max_map_count >= 262144,
# file descriptors, ...) only warn, so no sysctl is needed on a dev machine.
discovery.type: single-node
network.host: ${host}
http.port: ${port}
transport.port: ${transportPort}
path.data: ${p.data}
path.logs: ${p.logs}
bootstrap.memory_lock: false
${hasSecurity ? '# Local dev over plain HTTP with no credentials, like the rest of the stack.\nxpack.security.enabled: false\n' : ''}# Dev disks are often nearly full: watermarks as absolute free space, not 85/90/95 % used.
cluster.routing.allocation.disk.watermark.low: 1gb
cluster.routing.allocation.disk.watermark.high: 512mb
cluster.routing.allocation.disk.watermark.flood_stage: 256mb
# Tests clean up with DELETE <prefix>-*.
action.destructive_requires_name: false
`;
}

/**
 * The distribution's jvm.options with its relative log/dump paths made absolute: ES 8.7 resolves
 * them against the (root-owned) install dir, where the ES user cannot write. GC logs are capped at
 * 4 x 16 MB instead of 32 x 64 MB.
 */
function rewriteJvmOptions(original: string, p: ReturnType<typeof paths>): string {
  return original
    .replace(/file=(?:logs\/)?gc\.log/g, `file=${p.logs}/gc.log`)
    .replace(/filecount=\d+,filesize=\d+m/g, 'filecount=4,filesize=16m')
    .replace(/-XX:ErrorFile=(?:logs\/)?hs_err_pid%p\.log/g, `-XX:ErrorFile=${p.logs}/hs_err_pid%p.log`)
    .replace(/^-XX:HeapDumpPath=data$/m, `-XX:HeapDumpPath=${p.data}`);
}

/** Make the runtime dirs the ES user's (no-op when not root: they are already ours). */
async function chownToUser(user: string, targets: string[]): Promise<void> {
  if (!runsAsRoot()) return;
  await execFileAsync('chown', ['-R', `${user}:`, ...targets]);
}

/** Fetch with a short deadline: healthy() must answer "not yet" quickly. */
async function getJson(url: string): Promise<{ status: number; product: string | null; body: unknown }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, product: response.headers.get('x-elastic-product'), body };
}

export const elasticsearch: StackService = {
  name: 'elasticsearch',
  // ~15 s on 2 cores when warm; generous for a cold JIT on a slow laptop.
  startTimeoutMs: 180_000,

  async install(ctx) {
    const { version, user } = ctx.config.elasticsearch;
    if (runsAsRoot()) await ensureSystemUser(user);
    await relocateIfUnreachable(ctx, user);
    const p = paths(ctx);
    if (existsSync(p.installedMarker)) return;
    ctx.log(`elasticsearch: resolving ${DISTRIBUTION.groupId}:${DISTRIBUTION.artifactId}:${version}:zip from Maven Central`);
    const zip = await fetchArtifact({ ...DISTRIBUTION, version }, p.downloads);
    // Unpack beside the target and rename, so an interrupted install never looks complete.
    const scratch = join(esRoot(ctx), `unpack-${process.pid}`);
    await rm(scratch, { recursive: true, force: true });
    await mkdir(scratch, { recursive: true });
    try {
      await unzip(zip, scratch);
      await rm(p.home, { recursive: true, force: true });
      await rename(join(scratch, `elasticsearch-${version}`), p.home);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    // The zip (~100 MB) stays in ~/.m2; no need for a second copy under .stack.
    await rm(p.downloads, { recursive: true, force: true });
    const modules = (await readdir(join(p.home, 'modules'))).sort();
    await writeFile(p.installedMarker, `${modules.join('\n')}\n`);
    ctx.log(`elasticsearch: installed ${version} in ${p.home} (modules: ${modules.join(', ')})`);
  },

  async prepare(ctx) {
    const p = paths(ctx);
    await Promise.all([p.config, p.data, p.logs, p.tmp].map((dir) => mkdir(dir, { recursive: true })));
    // Start from the distribution's config (log4j2, jvm.options, ...) once; ES writes its
    // keystore here, so the folder is kept across starts.
    for (const entry of await readdir(join(p.home, 'config'), { withFileTypes: true })) {
      const target = join(p.config, entry.name);
      if (entry.isFile() && !existsSync(target)) await writeFile(target, await readFile(join(p.home, 'config', entry.name)));
      if (entry.isDirectory()) await mkdir(target, { recursive: true });
    }
    const hasSecurity = existsSync(join(p.home, 'modules', 'x-pack-security'));
    await writeFile(join(p.config, 'elasticsearch.yml'), elasticsearchYml(ctx, p, hasSecurity));
    const jvmOptions = await readFile(join(p.home, 'config', 'jvm.options'), 'utf8');
    await writeFile(join(p.config, 'jvm.options'), rewriteJvmOptions(jvmOptions, p));

    const { user } = ctx.config.elasticsearch;
    await chownToUser(user, [p.config, p.data, p.logs, p.tmp]);
    if (runsAsRoot()) {
      // A checkout under e.g. /root (mode 700) is unreachable for the ES user: say so now,
      // not as an opaque AccessDeniedException in the server log.
      try {
        await execFileAsync('runuser', ['-u', user, '--', 'test', '-x', p.bin, '-a', '-w', p.data]);
      } catch {
        throw new Error(
          `user ${user} cannot reach ${p.bin} or write ${p.data}; every folder above them must be searchable by others (chmod o+x).`,
        );
      }
    }
  },

  async launch(ctx) {
    const p = paths(ctx);
    const { heapMb, user } = ctx.config.elasticsearch;
    const env = {
      ES_JAVA_HOME: await resolveJavaHome(ctx),
      ES_PATH_CONF: p.config,
      ES_TMPDIR: p.tmp,
      ES_JAVA_OPTS: `-Xms${heapMb}m -Xmx${heapMb}m`,
    };
    // As root, wrap in runuser ourselves (no LaunchSpec.user): runuser forwards SIGTERM to ES,
    // so the supervisor's pid and group kill work unchanged. cwd: hs_err/heap dumps stay here.
    if (runsAsRoot()) {
      return { command: 'runuser', args: ['-u', user, '--', p.bin], env, cwd: esRoot(ctx) };
    }
    return { command: p.bin, args: [], env, cwd: esRoot(ctx) };
  },

  async healthy(ctx) {
    const base = `http://${ctx.config.host}:${ctx.config.elasticsearch.port}`;
    try {
      if (hasRootEndpoint(ctx.config.elasticsearch.version)) {
        const root = await getJson(`${base}/`);
        // The client rejects servers without this header, so check it the same way.
        if (root.status !== 200 || root.product !== 'Elasticsearch') return false;
      }
      const health = await getJson(`${base}/_cluster/health`);
      const status = (health.body as { status?: unknown }).status;
      return health.status === 200 && (status === 'green' || status === 'yellow');
    } catch {
      return false;
    }
  },

  endpoint(ctx) {
    return `http://${ctx.config.host}:${ctx.config.elasticsearch.port}`;
  },
};
