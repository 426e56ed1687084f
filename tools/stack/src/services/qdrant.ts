import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import type { StackContext, StackService } from '../service.ts';

const execFileAsync = promisify(execFile);

/** Where `scripts/install-qdrant.sh` (and .ci/run) unpack the server: `<cache>/qdrant-<version>/qdrant`. */
export const QDRANT_TOOLS_CACHE = join(homedir(), '.cache', 'rag-immune-tools');

export interface QdrantBinary {
  path: string;
  /** How it was found, for the operator: `QDRANT_BINARY`, `PATH` or the tools cache. */
  from: string;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The real Qdrant server binary: `QDRANT_BINARY`, else `qdrant` on the PATH, else the newest one in
 * the tools cache. Null when there is none (the stack then falls back to qdrant-local, loudly).
 * A `QDRANT_BINARY` that is not an executable file is an error, not a silent fallback.
 */
export function findQdrantBinary(env: NodeJS.ProcessEnv = process.env): QdrantBinary | null {
  const explicit = env.QDRANT_BINARY?.trim();
  if (explicit) {
    if (!executable(explicit)) throw new Error(`QDRANT_BINARY=${explicit} is not an executable file`);
    return { path: explicit, from: 'QDRANT_BINARY' };
  }
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'qdrant');
    if (executable(candidate)) return { path: candidate, from: 'PATH' };
  }
  const cached = existsSync(QDRANT_TOOLS_CACHE)
    ? readdirSync(QDRANT_TOOLS_CACHE)
        .filter((name) => /^qdrant-\d+\.\d+\.\d+$/.test(name))
        .sort((a, b) => compareVersions(b.slice(7), a.slice(7)))
        .map((name) => join(QDRANT_TOOLS_CACHE, name, 'qdrant'))
        .find(executable)
    : undefined;
  return cached ? { path: cached, from: 'the tools cache' } : null;
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

function paths(ctx: StackContext) {
  return {
    bin: join(ctx.serviceDir, 'bin', 'qdrant'),
    stamp: join(ctx.serviceDir, 'bin', '.source'),
    storage: join(ctx.serviceDir, 'storage'),
    snapshots: join(ctx.serviceDir, 'snapshots'),
    apiKey: join(ctx.serviceDir, 'api-key'),
  };
}

/** The stack's Qdrant API key: `QDRANT_API_KEY`, else the one generated at the first start. */
export function qdrantApiKey(serviceDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.QDRANT_API_KEY?.trim();
  if (fromEnv) return fromEnv;
  const file = join(serviceDir, 'api-key');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined;
}

/** The snapshots directory of the stack's own Qdrant (recover by `file://` must point inside it). */
export function qdrantSnapshotsDir(serviceDir: string): string {
  return join(serviceDir, 'snapshots');
}

function url(ctx: StackContext): string {
  return `http://${ctx.config.host}:${ctx.config.qdrant.port}`;
}

/**
 * The real Qdrant server (upstream binary, see ../shared/bin/README.md), REST and gRPC on loopback,
 * storage and snapshots under `.stack/qdrant/`, telemetry off, an API key every client sends. The
 * binary is copied under `.stack/qdrant/bin` so that the unprivileged stack user can run it (the
 * tools cache lives under root's home).
 */
export const qdrant: StackService = {
  name: 'qdrant',
  startTimeoutMs: 60_000,

  async install(ctx) {
    const found = findQdrantBinary();
    if (found === null) throw new Error('qdrant: no Qdrant binary (QDRANT_BINARY, qdrant on PATH, or the tools cache)');
    const p = paths(ctx);
    const source = statSync(found.path);
    const signature = `${found.path}\t${source.size}\t${source.mtimeMs}`;
    const stamp = existsSync(p.stamp) ? (await readFile(p.stamp, 'utf8')).trim() : '';
    if (stamp === signature && existsSync(p.bin)) return;
    await mkdir(join(ctx.serviceDir, 'bin'), { recursive: true });
    ctx.log(`qdrant: using ${found.path} (from ${found.from})`);
    await copyFile(found.path, `${p.bin}.tmp`);
    await chmod(`${p.bin}.tmp`, 0o755);
    await rename(`${p.bin}.tmp`, p.bin);
    const { stdout } = await execFileAsync(p.bin, ['--version']);
    ctx.log(`qdrant: ${stdout.trim()}`);
    await writeFile(p.stamp, `${signature}\n`);
  },

  async prepare(ctx) {
    const p = paths(ctx);
    await mkdir(p.storage, { recursive: true });
    await mkdir(p.snapshots, { recursive: true });
    if (!process.env.QDRANT_API_KEY && !existsSync(p.apiKey)) {
      await writeFile(p.apiKey, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
    }
  },

  async launch(ctx) {
    const p = paths(ctx);
    const key = qdrantApiKey(ctx.serviceDir);
    if (key === undefined) throw new Error(`qdrant: no API key (QDRANT_API_KEY or ${p.apiKey})`);
    return {
      command: p.bin,
      args: [],
      // Qdrant looks for ./config and ./static beside its working directory; neither is needed.
      cwd: ctx.serviceDir,
      env: {
        QDRANT__SERVICE__HOST: ctx.config.host,
        QDRANT__SERVICE__HTTP_PORT: String(ctx.config.qdrant.port),
        QDRANT__SERVICE__GRPC_PORT: String(ctx.config.qdrant.grpcPort),
        QDRANT__SERVICE__API_KEY: key,
        QDRANT__STORAGE__STORAGE_PATH: p.storage,
        QDRANT__STORAGE__SNAPSHOTS_PATH: p.snapshots,
        QDRANT__TELEMETRY_DISABLED: 'true',
        QDRANT__LOG_LEVEL: 'INFO',
      },
    };
  },

  async healthy(ctx) {
    const key = qdrantApiKey(ctx.serviceDir);
    try {
      const response = await fetch(`${url(ctx)}/`, {
        headers: key ? { 'api-key': key } : {},
        signal: AbortSignal.timeout(2000),
      });
      if (response.status !== 200) return false;
      const body = (await response.json()) as { title?: unknown; version?: unknown };
      // The stand-in answers here too; only the real server calls itself this.
      return typeof body.title === 'string' && body.title.startsWith('qdrant - ') && typeof body.version === 'string';
    } catch {
      return false;
    }
  },

  endpoint(ctx) {
    return url(ctx);
  },
};
