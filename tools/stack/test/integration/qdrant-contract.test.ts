/**
 * Contract suite: qdrant-local (tools/qdrant-local, the Qdrant Edge stand-in) against the real
 * Qdrant server. The test starts both itself, on free loopback ports with temporary storage and the
 * same API key, runs the SAME sequence of REST calls on each (through @qdrant/js-client-rest, the
 * client the product uses, and raw fetch where the client has no method), and asserts that the two
 * transcripts are equal. Issue 25: a call qdrant-local answers differently from Qdrant is a bug in
 * qdrant-local. The sequence also asserts what the answers must be, so two servers that agree on a
 * wrong answer still fail.
 *
 * Servers:
 *   - Qdrant: QDRANT_BINARY, else the newest ~/.cache/rag-immune-tools/qdrant-<version>/qdrant
 *     (../shared/bin/README.md says how it gets there). Started with the stack's environment
 *     (QDRANT__SERVICE__*, QDRANT__STORAGE__*, telemetry off, an API key).
 *   - qdrant-local: the stack's venv (.stack/qdrant-local/venv, or QDRANT_LOCAL_PYTHON) running
 *     `python -m qdrant_local --data-dir D` with the SAME environment as the real server.
 * When one is truly absent the test skips with a loud reason; with QDRANT_CONTRACT_REQUIRED=1 (or CI
 * set) a missing server fails it instead.
 *
 * What the comparison normalises away (values that differ by nature, or fields the project never
 * reads), everything else must be equal:
 *   - the envelope's `time`, and `operation_id` / point `version` values (counters whose numbering
 *     is the engine's business; the project reads neither);
 *   - the root endpoint's title / version / commit (qdrant-local labels itself a stand-in there);
 *   - snapshot descriptions' `creation_time`, `size` and `checksum` values (their shape is checked;
 *     the archive formats differ, so sizes and hashes do) and the peer-id / timestamp part of snapshot
 *     names (`<collection>-<peer id>-<YYYY-MM-DD-HH-MM-SS>.snapshot`);
 *   - each server's own temp paths, port and API key inside messages (`<snapshots>`, `<root>`, ...);
 *   - collection info `segments_count` (Qdrant sizes its segment count to the CPU count);
 *   - scores and vector components may differ by 1e-5 (relative): f32 printed by Rust vs Python;
 *   - a downloaded archive's bytes (two archive formats): the steps check its sha256 and length
 *     against the snapshot's own description instead;
 *   - the order of alias lists and snapshot lists (Qdrant reads them from a hash map and from
 *     the directory, in no fixed order): compared as sets;
 *   - for a few malformed bodies (the steps marked `looseFormat`) only the status and the message up
 *     to its first colon (`Format error in JSON body:`): serde's wording of an arbitrary parse
 *     failure inside an untagged enum, and validator messages whose parameters Qdrant prints from
 *     a hash map (in a different order on each call), are not reproduced word for word.
 * The real server adds nothing the comparison drops: where its answer has a field (update_queue,
 * wal_retain_closed, index params' is_principal, ...) qdrant-local now has it too.
 *
 * Run: node --import tsx --test --test-force-exit tools/stack/test/integration/qdrant-contract.test.ts
 * (about 40 s on 2 cores). QDRANT_CONTRACT_TRANSCRIPT=<file> writes both normalised transcripts.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test, type TestContext } from 'node:test';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { repoRoot } from '../../src/repo-root.ts';

// ---------------------------------------------------------------------------------------------
// Finding and starting the two servers

type Kind = 'qdrant' | 'qdrant-local';

interface Launch {
  kind: Kind;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

interface Server {
  kind: Kind;
  url: string;
  port: number;
  apiKey: string;
  /** Temporary root holding storage and snapshots. */
  root: string;
  /** The snapshots directory, as the server sees it (same machine: the real path). */
  snapshotsDir: string;
  storageDir: string;
  client: QdrantClient;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

function newestQdrantBinary(): { path?: string; why?: string } {
  const explicit = process.env.QDRANT_BINARY?.trim();
  if (explicit) {
    if (!existsSync(explicit) || !statSync(explicit).isFile()) throw new Error(`QDRANT_BINARY=${explicit} is not a file`);
    return { path: explicit };
  }
  const cache = join(homedir(), '.cache', 'rag-immune-tools');
  const dirs = existsSync(cache)
    ? readdirSync(cache)
        .filter((d) => /^qdrant-\d+\.\d+\.\d+$/.test(d))
        .sort((a, b) => {
          const [x, y] = [a.slice(7).split('.').map(Number), b.slice(7).split('.').map(Number)];
          for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return (y[i] ?? 0) - (x[i] ?? 0);
          return 0;
        })
    : [];
  const found = dirs.map((d) => join(cache, d, 'qdrant')).find((p) => existsSync(p));
  return found
    ? { path: found }
    : {
        why: `no Qdrant server binary: QDRANT_BINARY is unset and ${cache}/qdrant-<version>/qdrant does not exist (see ../shared/bin/README.md)`,
      };
}

function qdrantLocalPython(): { path?: string; why?: string } {
  const explicit = process.env.QDRANT_LOCAL_PYTHON?.trim();
  const path = explicit || join(repoRoot(), '.stack', 'qdrant-local', 'venv', 'bin', 'python');
  if (existsSync(path)) return { path };
  return {
    why: `no qdrant-local venv: ${path} does not exist (the stack creates it: npm run stack -- up qdrant-local; or set QDRANT_LOCAL_PYTHON)`,
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** The environment the stack gives the real server; qdrant-local is given the same. */
function qdrantEnv(httpPort: number, grpcPort: number, storage: string, snapshots: string, apiKey: string): Record<string, string> {
  return {
    QDRANT__SERVICE__HOST: '127.0.0.1',
    QDRANT__SERVICE__HTTP_PORT: String(httpPort),
    QDRANT__SERVICE__GRPC_PORT: String(grpcPort),
    QDRANT__STORAGE__STORAGE_PATH: storage,
    QDRANT__STORAGE__SNAPSHOTS_PATH: snapshots,
    QDRANT__TELEMETRY_DISABLED: 'true',
    QDRANT__SERVICE__API_KEY: apiKey,
    QDRANT__LOG_LEVEL: 'WARN',
  };
}

async function startServer(kind: Kind, executable: string, apiKey: string): Promise<Server> {
  // Same-length prefixes: paths inside messages (and serde's column numbers after them) line up.
  const root = realpathSync(await mkdtemp(join(tmpdir(), kind === 'qdrant' ? 'contract-qdrant-' : 'contract-qlocal-')));
  const storageDir = join(root, 'storage');
  const snapshotsDir = join(root, 'snapshots');
  await mkdir(storageDir, { recursive: true });
  await mkdir(snapshotsDir, { recursive: true });
  const port = await freePort();
  const grpcPort = await freePort();
  const env = qdrantEnv(port, grpcPort, storageDir, snapshotsDir, apiKey);
  const source = join(repoRoot(), 'tools', 'qdrant-local');
  const launch: Launch =
    kind === 'qdrant'
      ? { kind, command: executable, args: [], cwd: root, env }
      : {
          kind,
          command: executable,
          // Everything else (host, port, api key, snapshots dir) comes from the same QDRANT__* env.
          args: ['-m', 'qdrant_local', '--data-dir', storageDir, '--flush-interval', '1'],
          cwd: source,
          env: { ...env, PYTHONPATH: source, PYTHONUNBUFFERED: '1' },
        };
  const url = `http://127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    output = '';
    proc = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? root, ...launch.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`${kind} exited at start (${proc.exitCode ?? proc.signalCode}):\n${output}`);
      try {
        const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
        if (r.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${kind} did not become ready on ${url} within 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stop = async () => {
    const p = proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()));
    p.kill('SIGTERM');
    const timer = setTimeout(() => p.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return {
    kind,
    url,
    port,
    apiKey,
    root,
    snapshotsDir,
    storageDir,
    client: createQdrantClient({ url, apiKey }),
    stop: async () => {
      await stop();
      await rm(root, { recursive: true, force: true });
    },
    restart: async () => {
      await stop();
      await start();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Recording and normalising answers

type Answer = unknown;

interface Entry {
  step: string;
  answer: Answer;
}

const SNAPSHOT_NAME = /([A-Za-z0-9_.]+(?:-[A-Za-z_.][A-Za-z0-9_.]*)*)-\d+-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.snapshot/g;

/** Replace what differs by nature between the two servers (see the header comment). */
function normalise(value: unknown, server: Server): unknown {
  const subs: [string, string][] = [
    [server.snapshotsDir, '<snapshots>'],
    [server.storageDir, '<storage>'],
    [server.root, '<root>'],
    [server.url, '<url>'],
    [server.apiKey, '<api-key>'],
  ];
  const str = (s: string): string => {
    let out = s;
    for (const [from, to] of subs) out = out.split(from).join(to);
    return out.replace(SNAPSHOT_NAME, '$1-<peer>-<time>.snapshot').replace(/\b(?!0{64}\b)[0-9a-f]{64}\b/g, '<sha256>');
  };
  const walk = (v: unknown, key: string | undefined, parent: Record<string, unknown> | undefined): unknown => {
    if (typeof v === 'string') {
      if (key === 'creation_time' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/.test(v)) return '<creation_time>';
      return str(v);
    }
    if (typeof v === 'bigint') return Number(v);
    if (typeof v === 'number') {
      if (key === 'operation_id' && Number.isInteger(v) && v >= 0) return '<operation_id>';
      if (key === 'version' && parent && 'id' in parent && Number.isInteger(v)) return '<version>';
      if (key === 'size' && parent && 'creation_time' in parent && Number.isInteger(v) && v > 0) return '<size>';
      if (key === 'segments_count' && Number.isInteger(v) && v > 0) return '<segments>';
      return v;
    }
    if (Array.isArray(v)) {
      const items = v.map((x) => walk(x, undefined, undefined));
      const isSnapshotList = items.every((x) => x && typeof x === 'object' && 'name' in x && 'creation_time' in x);
      return isSnapshotList
        ? items.sort((a, b) => String((a as { name: string }).name).localeCompare(String((b as { name: string }).name)))
        : items;
    }
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      const keys = Object.keys(o).sort();
      if (keys.join() === 'commit,title,version') return { commit: '<commit>', title: '<title>', version: '<version>' };
      for (const k of keys) {
        if (k === 'time' && typeof o[k] === 'number') continue;
        out[k] = walk(o[k], k, o);
      }
      // Qdrant lists aliases from a hash map and snapshots in directory order: compare them as sets.
      for (const k of ['aliases'] as const) {
        if (Array.isArray(out[k]))
          out[k] = [...(out[k] as { alias_name?: string }[])].sort((a, b) => String(a.alias_name).localeCompare(String(b.alias_name)));
      }
      return out;
    }
    return v;
  };
  return walk(value, undefined, undefined);
}

type Outcome<T> = { ok: true; value: T } | { ok: false; status: number | undefined; data: unknown; error: unknown };

interface HttpAnswer {
  status: number;
  contentType: string | null;
  body: unknown;
  headers: Record<string, string>;
}

interface HttpOptions {
  json?: unknown;
  text?: string;
  form?: FormData;
  bytes?: Uint8Array;
  contentType?: string;
  auth?: 'key' | 'none' | 'wrong' | 'bearer';
  /** Response headers to record (lowercase). */
  headers?: string[];
  /** Compare only the status and the error message up to its first colon (serde's or validator's wording). */
  looseFormat?: boolean;
  /** Retry (up to 5 times) when the server resets the connection before the client has sent the body. */
  retryReset?: boolean;
}

class Side {
  readonly entries: Entry[] = [];
  constructor(readonly server: Server) {}

  get client(): QdrantClient {
    return this.server.client;
  }

  record(step: string, answer: unknown): void {
    this.entries.push({ step, answer: normalise(answer, this.server) });
  }

  /** A client call; its value or its error (status + body) goes into the transcript. */
  async call<T>(step: string, fn: (client: QdrantClient) => Promise<T>, client: QdrantClient = this.client): Promise<Outcome<T>> {
    try {
      const value = await fn(client);
      this.record(step, { ok: value === undefined ? null : value });
      return { ok: true, value };
    } catch (error) {
      const e = error as { status?: unknown; data?: unknown; name?: string; message?: string };
      const status = typeof e.status === 'number' ? e.status : undefined;
      this.record(
        step,
        status !== undefined ? { status, body: e.data ?? null } : { thrown: e.name ?? 'Error', message: (e.message ?? '').split('\n')[0] },
      );
      return { ok: false, status, data: e.data, error };
    }
  }

  /** A raw HTTP call; status, content type and body (JSON parsed, text as text, an archive as present or not) are recorded. */
  async http(step: string, method: string, path: string, options: HttpOptions = {}): Promise<HttpAnswer & { raw: Buffer }> {
    const headers: Record<string, string> = {};
    const auth = options.auth ?? 'key';
    if (auth === 'key') headers['api-key'] = this.server.apiKey;
    if (auth === 'wrong') headers['api-key'] = `${this.server.apiKey}-wrong`;
    if (auth === 'bearer') headers.authorization = `Bearer ${this.server.apiKey}`;
    let body: string | FormData | Uint8Array | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.text !== undefined) {
      headers['content-type'] = options.contentType ?? 'application/json';
      body = options.text;
    } else if (options.form) {
      body = options.form;
    } else if (options.bytes) {
      headers['content-type'] = options.contentType ?? 'application/octet-stream';
      body = options.bytes;
    }
    let response: Response | undefined;
    for (let attempt = 1; !response; attempt += 1) {
      try {
        response = await fetch(`${this.server.url}${path}`, { method, headers, body, signal: AbortSignal.timeout(120_000) });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        const code = cause?.code ?? cause?.message ?? String(error);
        if (options.retryReset && attempt < 5 && /EPIPE|ECONNRESET|UND_ERR_SOCKET/.test(code)) continue;
        this.record(step, { fetchFailed: code });
        return { status: 0, contentType: null, body: null, headers: {}, raw: Buffer.alloc(0) };
      }
    }
    const raw = Buffer.from(await response.arrayBuffer());
    const contentType = response.headers.get('content-type')?.split(';')[0]?.trim() ?? null;
    let parsed: unknown;
    if (contentType === 'application/json') parsed = JSON.parse(raw.toString('utf8'));
    // An archive's bytes differ by nature (two formats); the steps check its hash and size against its description.
    else if (contentType === 'application/octet-stream') parsed = { archive: raw.length > 0 };
    else parsed = raw.toString('utf8');
    const picked: Record<string, string> = {};
    for (const h of options.headers ?? []) picked[h] = response.headers.get(h) ?? '<absent>';
    const answer: HttpAnswer = { status: response.status, contentType, body: parsed, headers: picked };
    let recorded: unknown = answer;
    if (options.looseFormat) {
      const message = (parsed as { status?: { error?: string } } | undefined)?.status?.error ?? '';
      recorded = { status: response.status, contentType, errorPrefix: message.slice(0, message.indexOf(':') + 1) };
    }
    this.record(step, recorded);
    return { ...answer, raw };
  }
}

function must<T>(outcome: Outcome<T>, what: string): T {
  if (outcome.ok) return outcome.value;
  assert.fail(`${what} failed: status ${outcome.status} ${JSON.stringify(outcome.data ?? String(outcome.error))}`);
}

function errorOf(outcome: Outcome<unknown>): { status: number | undefined; message: string } {
  assert.equal(outcome.ok, false, 'expected the call to fail');
  const data = (outcome as { data?: unknown }).data;
  const message =
    typeof data === 'string' ? data : ((data as { status?: { error?: string } } | undefined)?.status?.error ?? JSON.stringify(data));
  return { status: (outcome as { status?: number }).status, message };
}

// ---------------------------------------------------------------------------------------------
// The sequence: data

const DIM = 4;

/** A deterministic vector per seed, so nearest-neighbour orders are the same on both servers. */
function vec(seed: number): number[] {
  return Array.from({ length: DIM }, (_, i) => Math.round((Math.sin(seed * 7.13 + i * 1.7) + (i === seed % DIM ? 2 : 0)) * 1000) / 1000);
}

const U1 = '5c56c793-69f3-4fbf-87e6-c4bf54c28c26';
const U2 = 'a3d2c1b0-0000-4000-8000-000000000002';

/** Chunk-like payloads: what the reference RAG and the memory worker write and filter on. */
const DOCS: { id: number | string; payload: Record<string, unknown> }[] = [
  {
    id: 1,
    payload: {
      tenant: 'acme',
      kind: 'faq',
      score: 0.9,
      n: 1,
      flag: true,
      valid_from: '2024-01-01T00:00:00Z',
      valid_until: null,
      tags: ['a', 'b'],
      meta: { lang: 'en' },
    },
  },
  {
    id: 2,
    payload: {
      tenant: 'acme',
      kind: 'policy',
      score: 0.4,
      n: 5,
      flag: false,
      valid_from: '2024-03-01T00:00:00Z',
      valid_until: '2024-06-01T00:00:00Z',
      tags: ['b'],
      meta: { lang: 'de' },
    },
  },
  {
    id: 3,
    payload: {
      tenant: 'acme',
      kind: 'faq',
      score: 0.2,
      n: 9,
      flag: true,
      valid_from: '2023-01-01T00:00:00Z',
      valid_until: '2024-02-01T00:00:00Z',
      tags: [],
      note: null,
    },
  },
  {
    id: 4,
    payload: {
      tenant: 'globex',
      kind: 'faq',
      score: 0.8,
      n: 2,
      flag: false,
      valid_from: '2024-05-01T00:00:00Z',
      valid_until: null,
      tags: ['c'],
      meta: { lang: 'en' },
    },
  },
  {
    id: 5,
    payload: {
      tenant: 'globex',
      kind: 'runbook',
      score: 0.6,
      n: 7,
      flag: true,
      valid_from: '2024-01-15T00:00:00Z',
      valid_until: null,
      meta: { lang: 'fr' },
      versions: [
        { v: 1, ok: true },
        { v: 2, ok: false },
      ],
    },
  },
  {
    id: 6,
    payload: {
      tenant: 'acme',
      kind: 'runbook',
      score: 0.7,
      n: 3,
      flag: false,
      valid_from: '2024-02-01T00:00:00Z',
      valid_until: '2025-01-01T00:00:00Z',
      tags: ['a'],
      versions: [{ v: 3, ok: true }],
    },
  },
  {
    id: U1,
    payload: {
      tenant: 'initech',
      kind: 'faq',
      score: 0.5,
      n: 4,
      flag: true,
      valid_from: '2024-01-01T00:00:00Z',
      valid_until: null,
      tags: ['a', 'c'],
      meta: { lang: 'en' },
    },
  },
  {
    id: U2,
    payload: {
      tenant: 'initech',
      kind: 'policy',
      score: 0.1,
      n: 6,
      flag: false,
      valid_from: '2024-04-01T00:00:00Z',
      valid_until: '2024-04-02T00:00:00Z',
    },
  },
];

function seedOf(id: number | string): number {
  return typeof id === 'number' ? id : id === U1 ? 11 : 12;
}

function points() {
  return DOCS.map((d) => ({ id: d.id, vector: vec(seedOf(d.id)), payload: d.payload }));
}

const sortIds = (ids: (string | number)[]) => [...ids].map(String).sort();

/** The reference RAG's "valid at T" filter (services/reference-rag/src/index/vector-index.ts). */
function validAt(t: string, extra: Record<string, unknown>[] = []): Record<string, unknown> {
  return {
    must: [
      { key: 'valid_from', range: { lte: t } },
      { should: [{ key: 'valid_until', range: { gt: t } }, { is_null: { key: 'valid_until' } }] },
      ...extra,
    ],
  };
}

/** Filters whose matches both servers must agree on, with the ids Qdrant's semantics give. */
const FILTERS: { name: string; filter: Record<string, unknown>; ids: (number | string)[] }[] = [
  { name: 'must match value', filter: { must: [{ key: 'tenant', match: { value: 'acme' } }] }, ids: [1, 2, 3, 6] },
  { name: 'must as a single condition', filter: { must: { key: 'kind', match: { value: 'faq' } } }, ids: [1, 3, 4, U1] },
  {
    name: 'should',
    filter: {
      should: [
        { key: 'kind', match: { value: 'policy' } },
        { key: 'n', range: { gte: 9 } },
      ],
    },
    ids: [2, 3, U2],
  },
  { name: 'must_not match any', filter: { must_not: [{ key: 'tenant', match: { any: ['acme', 'globex'] } }] }, ids: [U1, U2] },
  { name: 'match except', filter: { must: [{ key: 'kind', match: { except: ['faq', 'policy'] } }] }, ids: [5, 6] },
  { name: 'match bool', filter: { must: [{ key: 'flag', match: { value: true } }] }, ids: [1, 3, 5, U1] },
  { name: 'match integer', filter: { must: [{ key: 'n', match: { value: 7 } }] }, ids: [5] },
  { name: 'range float', filter: { must: [{ key: 'score', range: { gt: 0.2, lte: 0.7 } }] }, ids: [2, 5, 6, U1] },
  { name: 'range integer', filter: { must: [{ key: 'n', range: { gte: 3, lt: 7 } }] }, ids: [2, 6, U1, U2] },
  {
    name: 'datetime range',
    filter: { must: [{ key: 'valid_from', range: { gte: '2024-01-15T00:00:00Z', lt: '2024-04-01T00:00:00+00:00' } }] },
    ids: [2, 5, 6],
  },
  { name: 'valid at 2024-05-15 (the RAG as-of filter)', filter: validAt('2024-05-15T00:00:00.000Z'), ids: [1, 2, 4, 5, 6, U1] },
  { name: 'valid at 2024-01-20', filter: validAt('2024-01-20T00:00:00.000Z'), ids: [1, 3, 5, U1] },
  { name: 'is_null', filter: { must: [{ is_null: { key: 'valid_until' } }] }, ids: [1, 4, 5, U1] },
  { name: 'is_null on a missing key', filter: { must: [{ is_null: { key: 'note' } }] }, ids: [3] },
  { name: 'is_empty', filter: { must: [{ is_empty: { key: 'tags' } }] }, ids: [3, 5, U2] },
  { name: 'has_id (UUID in upper case)', filter: { must: [{ has_id: [2, 5, U1.toUpperCase()] }] }, ids: [2, 5, U1] },
  { name: 'nested key a.b', filter: { must: [{ key: 'meta.lang', match: { value: 'en' } }] }, ids: [1, 4, U1] },
  { name: 'array element', filter: { must: [{ key: 'tags', match: { value: 'a' } }] }, ids: [1, 6, U1] },
  {
    name: 'nested bool filter',
    filter: {
      must: [
        { key: 'tenant', match: { value: 'acme' } },
        {
          should: [
            { key: 'n', range: { lt: 2 } },
            {
              must: [
                { key: 'kind', match: { value: 'runbook' } },
                { key: 'flag', match: { value: false } },
              ],
            },
          ],
        },
      ],
      must_not: [{ key: 'meta.lang', match: { value: 'de' } }],
    },
    ids: [1, 6],
  },
  {
    name: 'nested (array of objects)',
    filter: {
      must: [
        {
          nested: {
            key: 'versions',
            filter: {
              must: [
                { key: 'v', range: { gte: 2 } },
                { key: 'ok', match: { value: true } },
              ],
            },
          },
        },
      ],
    },
    ids: [6],
  },
  {
    name: 'memory worker case filter',
    filter: {
      must: [
        { key: 'tenant', match: { value: 'acme' } },
        { key: 'kind', match: { value: 'faq' } },
      ],
      must_not: [{ key: 'n', match: { value: 3 } }],
    },
    ids: [1, 3],
  },
  { name: 'empty filter', filter: {}, ids: DOCS.map((d) => d.id) },
];

// ---------------------------------------------------------------------------------------------
// The sequence: sections, each run on both servers and compared

type Section = { name: string; run: (s: Side) => Promise<void> };

const C = 'chunks';

const SECTIONS: Section[] = [
  {
    name: 'root, health endpoints and API-key auth',
    run: async (s) => {
      const root = await s.http('GET / without a key', 'GET', '/', { auth: 'none' });
      assert.equal(root.status, 200);
      const info = root.body as { title: string; version: string };
      s.record('root fields', Object.keys(info).sort());
      assert.match(info.version, /^1\.\d+\.\d+$/);
      assert.match(
        info.title,
        s.server.kind === 'qdrant' ? /^qdrant - vector search engine$/ : /qdrant-local .*stand-in, not a Qdrant server/,
      );
      for (const path of ['/healthz', '/livez', '/readyz']) {
        const r = await s.http(`GET ${path} without a key`, 'GET', path, { auth: 'none' });
        assert.equal(r.status, 200);
      }
      const none = await s.http('GET /collections without a key', 'GET', '/collections', { auth: 'none' });
      assert.equal(none.status, 401);
      assert.equal(none.body, 'Must provide an API key or an Authorization bearer token');
      const wrong = await s.http('GET /collections with a wrong key', 'GET', '/collections', { auth: 'wrong' });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body, 'Invalid API key or JWT');
      const bearer = await s.http('GET /collections with a bearer token', 'GET', '/collections', { auth: 'bearer' });
      assert.equal(bearer.status, 200);
      await s.http('POST query without a key (auth before anything else)', 'POST', `/collections/${C}/points/query`, {
        auth: 'none',
        json: { query: [1, 2] },
      });
      await s.http('an unknown route without a key', 'GET', '/no/such/route', { auth: 'none' });
      const unknown = await s.http('an unknown route with the key', 'GET', '/no/such/route');
      assert.equal(unknown.status, 404);
      await s.http('a wrong method with the key', 'PATCH', `/collections/${C}/points`, { json: {} });
      await s.http('a snapshot upload without a key', 'POST', `/collections/${C}/snapshots/upload`, { auth: 'none', form: new FormData() });

      const anonymous = createQdrantClient({ url: s.server.url });
      const noKey = await s.call('client without a key: getCollections', (c) => c.getCollections(), anonymous);
      assert.equal(errorOf(noKey).status, 401);
      const badKey = createQdrantClient({ url: s.server.url, apiKey: 'not-the-key' });
      const wrongKey = await s.call('client with a wrong key: collectionExists', (c) => c.collectionExists(C), badKey);
      assert.equal(errorOf(wrongKey).message, 'Invalid API key or JWT');
    },
  },
  {
    name: 'collections: exists, create, get, list, payload indexes',
    run: async (s) => {
      assert.equal(must(await s.call('collectionExists before create', (c) => c.collectionExists(C)), 'exists').exists, false);
      const missing = await s.call('getCollection of an unknown collection', (c) => c.getCollection(C));
      assert.deepEqual(errorOf(missing), { status: 404, message: `Not found: Collection \`${C}\` doesn't exist!` });
      assert.equal(
        must(await s.call('createCollection', (c) => c.createCollection(C, { vectors: { size: DIM, distance: 'Cosine' } })), 'create'),
        true,
      );
      const dup = await s.call('createCollection again', (c) => c.createCollection(C, { vectors: { size: DIM, distance: 'Cosine' } }));
      assert.deepEqual(errorOf(dup), { status: 409, message: `Wrong input: Collection \`${C}\` already exists!` });
      await s.http('createCollection with an unknown distance', 'PUT', '/collections/bad_distance', {
        json: { vectors: { size: 4, distance: 'Hamming' } },
        looseFormat: true,
      });
      await s.http('createCollection with size 0', 'PUT', '/collections/bad_size', {
        json: { vectors: { size: 0, distance: 'Cosine' } },
        looseFormat: true,
      });
      await s.http('createCollection without a body', 'PUT', '/collections/no_body', { looseFormat: true });
      assert.equal(must(await s.call('collectionExists after create', (c) => c.collectionExists(C)), 'exists').exists, true);
      await s.call('getCollections', (c) => c.getCollections());
      const schemas: [string, 'keyword' | 'datetime' | 'integer' | 'float' | 'bool'][] = [
        ['tenant', 'keyword'],
        ['kind', 'keyword'],
        ['valid_from', 'datetime'],
        ['valid_until', 'datetime'],
        ['score', 'float'],
        ['flag', 'bool'],
        ['meta.lang', 'keyword'],
      ];
      for (const [field_name, field_schema] of schemas) {
        const r = must(
          await s.call(`createPayloadIndex ${field_name} ${field_schema}`, (c) =>
            c.createPayloadIndex(C, { field_name, field_schema, wait: true }),
          ),
          'index',
        );
        assert.equal(r.status, 'completed');
      }
      await s.call('createPayloadIndex integer with params', (c) =>
        c.createPayloadIndex(C, { field_name: 'n', field_schema: { type: 'integer', lookup: true, range: true }, wait: true }),
      );
      await s.http('createPayloadIndex of an unknown type', 'PUT', `/collections/${C}/index?wait=true`, {
        json: { field_name: 'x', field_schema: 'vector' },
        looseFormat: true,
      });
      await s.call('createPayloadIndex on an unknown collection', (c) =>
        c.createPayloadIndex('nope', { field_name: 'tenant', field_schema: 'keyword', wait: true }),
      );
      const info = must(await s.call('getCollection with indexes', (c) => c.getCollection(C)), 'info');
      assert.equal(info.payload_schema['valid_from']?.data_type, 'datetime');
      assert.equal(info.payload_schema['n']?.data_type, 'integer');
    },
  },
  {
    name: 'points: upsert, retrieve, get',
    run: async (s) => {
      const r = must(await s.call('upsert with wait', (c) => c.upsert(C, { wait: true, points: points() })), 'upsert');
      assert.equal(r.status, 'completed');
      const dim = await s.call('upsert a wrong dimension', (c) => c.upsert(C, { wait: true, points: [{ id: 99, vector: [1, 2, 3] }] }));
      assert.deepEqual(errorOf(dim), { status: 400, message: 'Wrong input: Vector dimension error: expected dim: 4, got 3' });
      await s.call('upsert an invalid point id', (c) => c.upsert(C, { wait: true, points: [{ id: 'not-a-uuid', vector: vec(1) }] }));
      await s.call('upsert into an unknown collection', (c) => c.upsert('nope', { wait: true, points: [{ id: 1, vector: vec(1) }] }));
      await s.http('upsert malformed JSON', 'PUT', `/collections/${C}/points?wait=true`, { text: '{not json', looseFormat: true });
      await s.call('upsert a batch', (c) =>
        c.upsert(C, {
          wait: true,
          batch: { ids: [100, 101], vectors: [vec(100), vec(101)], payloads: [{ tenant: 'tmp' }, { tenant: 'tmp' }] },
        }),
      );
      await s.call('delete the batch', (c) => c.delete(C, { wait: true, points: [100, 101] }));
      const count = must(await s.call('count exact', (c) => c.count(C, { exact: true })), 'count');
      assert.equal(count.count, DOCS.length);
      await s.call('retrieve (defaults)', (c) => c.retrieve(C, { ids: [2, 5, 999, U1] }));
      const full = must(
        await s.call('retrieve with payload and vector', (c) => c.retrieve(C, { ids: [2, U1], with_payload: true, with_vector: true })),
        'retrieve',
      );
      assert.equal(full.length, 2);
      await s.call('retrieve vectors only (memory worker)', (c) => c.retrieve(C, { ids: [1, U2], with_vector: true, with_payload: false }));
      await s.call('retrieve with a payload selector', (c) => c.retrieve(C, { ids: [1], with_payload: ['tenant', 'meta'] }));
      await s.http('GET one point', 'GET', `/collections/${C}/points/4`);
      await s.http('GET one point by UUID', 'GET', `/collections/${C}/points/${U1}`);
      await s.http('GET a missing point', 'GET', `/collections/${C}/points/999`);
      await s.http('GET a point by a malformed id', 'GET', `/collections/${C}/points/abc`);
    },
  },
  {
    name: 'query: vector, filter, limit, threshold, offset, by id',
    run: async (s) => {
      const rag = must(
        await s.call('query as the reference RAG does', (c) =>
          c.query(C, { query: vec(1), filter: validAt('2024-05-15T00:00:00.000Z'), limit: 3, with_payload: true }),
        ),
        'query',
      );
      assert.equal(rag.points.length, 3);
      assert.equal(rag.points[0]?.id, 1);
      await s.call('query as the memory worker does', (c) =>
        c.query(C, {
          query: vec(3),
          limit: 5,
          filter: {
            must: [
              { key: 'tenant', match: { value: 'acme' } },
              { key: 'kind', match: { value: 'faq' } },
            ],
            must_not: [{ key: 'n', match: { value: 1 } }],
          },
          with_payload: false,
        }),
      );
      await s.call('query (defaults: limit 10, no payload)', (c) => c.query(C, { query: vec(4) }));
      await s.call('query with score_threshold', (c) => c.query(C, { query: vec(3), limit: 10, score_threshold: 0.9 }));
      await s.call('query with offset', (c) => c.query(C, { query: vec(2), limit: 2, offset: 1 }));
      await s.call('query with vectors', (c) => c.query(C, { query: vec(5), limit: 2, with_vector: true, with_payload: ['kind'] }));
      await s.call('query by point id', (c) => c.query(C, { query: 6, limit: 3 }));
      await s.call('query {nearest}', (c) => c.query(C, { query: { nearest: vec(6) }, limit: 2 }));
      await s.call('query a wrong dimension', (c) => c.query(C, { query: [1, 0, 0], limit: 3 }));
      await s.call('query an unknown collection', (c) => c.query('nope', { query: vec(1) }));
      await s.call('query with limit 0', (c) => c.query(C, { query: vec(1), limit: 0 }));
      await s.call('scroll with limit 0', (c) => c.scroll(C, { limit: 0 }));
      await s.call('search with limit 0', (c) => c.search(C, { vector: vec(1), limit: 0 }));
      await s.call('search (deprecated endpoint)', (c) =>
        c.search(C, { vector: vec(1), limit: 2, filter: { must: [{ key: 'flag', match: { value: true } }] } }),
      );
    },
  },
  {
    name: 'filters (scroll and count)',
    run: async (s) => {
      for (const f of FILTERS) {
        const page = must(
          await s.call(`scroll: ${f.name}`, (c) => c.scroll(C, { filter: f.filter, limit: 100, with_payload: false })),
          f.name,
        );
        assert.deepEqual(sortIds(page.points.map((p) => p.id)), sortIds(f.ids), f.name);
        const n = must(await s.call(`count: ${f.name}`, (c) => c.count(C, { filter: f.filter, exact: true })), f.name);
        assert.equal(n.count, f.ids.length, f.name);
      }
    },
  },
  {
    name: 'scroll paging, order_by, vectors',
    run: async (s) => {
      const seen: (string | number)[] = [];
      let offset: string | number | undefined;
      for (let i = 0; i < 10; i += 1) {
        const page = must(
          await s.call(`scroll page ${i}`, (c) =>
            c.scroll(C, { limit: 3, with_payload: true, with_vector: false, ...(offset === undefined ? {} : { offset }) }),
          ),
          'scroll',
        );
        seen.push(...page.points.map((p) => p.id));
        const next = page.next_page_offset;
        if (next === null || next === undefined) break;
        assert.ok(typeof next === 'string' || typeof next === 'number');
        offset = next;
      }
      assert.deepEqual(sortIds(seen), sortIds(DOCS.map((d) => d.id)), 'paging visits every point once');
      await s.call('scroll from a UUID offset', (c) => c.scroll(C, { limit: 2, offset: U1 }));
      await s.call('scroll with vectors (the RAG fault undo)', (c) =>
        c.scroll(C, { limit: 2, with_vector: true, filter: { must: [{ key: 'n', range: { lte: 2 } }] } }),
      );
      await s.call('scroll (defaults)', (c) => c.scroll(C, {}));
      await s.call('scroll order_by score desc', (c) => c.scroll(C, { limit: 3, order_by: { key: 'score', direction: 'desc' } }));
      await s.call('scroll order_by n asc', (c) => c.scroll(C, { limit: 3, order_by: 'n' }));
      await s.call('scroll order_by an unindexed key', (c) => c.scroll(C, { limit: 3, order_by: 'nope' }));
      await s.call('scroll an unknown collection', (c) => c.scroll('nope', { limit: 3 }));
      await s.call('count (defaults)', (c) => c.count(C));
      await s.call('count an unknown collection', (c) => c.count('nope', { exact: true }));
    },
  },
  {
    name: 'malformed filters and bodies',
    run: async (s) => {
      const noCondition = await s.call('query: a field condition without a condition', (c) =>
        c.query(C, { query: vec(1), filter: { must: [{ key: 'tenant' } as never] } }),
      );
      assert.equal(errorOf(noCondition).status, 422);
      await s.call('scroll: a field condition without a condition', (c) => c.scroll(C, { filter: { must: [{ key: 'tenant' } as never] } }));
      await s.call('count: a field condition without a condition', (c) => c.count(C, { filter: { must: [{ key: 'tenant' } as never] } }));
      for (const [name, filter] of [
        ['unknown filter field', { bogus: [] }],
        ['must is a string', { must: 'x' }],
        ['unknown condition', { must: [{ unknown: 1 }] }],
        ['match value is a float', { must: [{ key: 'x', match: { value: 1.5 } }] }],
        ['match any mixes types', { must: [{ key: 'x', match: { any: [1, 'a'] } }] }],
        ['range mixes a datetime and a number', { must: [{ key: 'x', range: { gt: '2020-01-01T00:00:00Z', lt: 3 } }] }],
        ['range with a bad datetime', { must: [{ key: 'x', range: { gt: 'yesterday' } }] }],
        ['has_id with a bad id', { must: [{ has_id: ['nope'] }] }],
      ] as const) {
        const r = await s.http(`scroll: ${name}`, 'POST', `/collections/${C}/points/scroll`, { json: { filter }, looseFormat: true });
        assert.equal(r.status, 400, name);
      }
    },
  },
  {
    name: 'payload updates and deletes',
    run: async (s) => {
      await s.call('setPayload by id (memory worker sync)', (c) =>
        c.setPayload(C, { wait: true, points: [U2], payload: { status: 'active', n: 60 } }),
      );
      await s.call('retrieve after setPayload', (c) => c.retrieve(C, { ids: [U2], with_payload: true }));
      await s.call('setPayload by filter', (c) =>
        c.setPayload(C, { wait: true, filter: { must: [{ key: 'tenant', match: { value: 'globex' } }] }, payload: { region: 'eu' } }),
      );
      await s.call('overwritePayload', (c) =>
        c.overwritePayload(C, { wait: true, points: [4], payload: { tenant: 'globex', kind: 'faq', replaced: true } }),
      );
      await s.call('deletePayload keys', (c) => c.deletePayload(C, { wait: true, points: [5], keys: ['region', 'versions'] }));
      await s.call('retrieve after payload changes', (c) => c.retrieve(C, { ids: [4, 5, U2], with_payload: true }));
      await s.call('setPayload on a missing point', (c) => c.setPayload(C, { wait: true, points: [999], payload: { x: 1 } }));
      await s.call('delete by ids', (c) => c.delete(C, { wait: true, points: [U2] }));
      await s.call('delete by filter', (c) => c.delete(C, { wait: true, filter: { must: [{ key: 'replaced', match: { value: true } }] } }));
      await s.call('delete a missing id', (c) => c.delete(C, { wait: true, points: [12345] }));
      // Qdrant does not validate a delete filter: a field condition without a condition matches nothing...
      await s.call('delete with a malformed filter', (c) => c.delete(C, { wait: true, filter: { must: [{ key: 'x' } as never] } }));
      await s.call('setPayload with a malformed filter', (c) =>
        c.setPayload(C, { wait: true, filter: { must: [{ key: 'x' } as never] }, payload: { y: 1 } }),
      );
      // ... so under must_not it matches everything: this delete empties the collection.
      await s.client.createCollection('scratch', { vectors: { size: DIM, distance: 'Cosine' } });
      await s.client.upsert('scratch', { wait: true, points: [1, 2, 3].map((id) => ({ id, vector: vec(id) })) });
      await s.call('delete with must_not of a malformed condition', (c) =>
        c.delete('scratch', { wait: true, filter: { must_not: [{ key: 'x' } as never] } }),
      );
      const wiped = must(await s.call('count after that delete', (c) => c.count('scratch', { exact: true })), 'count');
      assert.equal(wiped.count, 0);
      await s.client.deleteCollection('scratch');
      const n = must(await s.call('count after deletes', (c) => c.count(C, { exact: true })), 'count');
      assert.equal(n.count, DOCS.length - 2);
      await s.call('re-upsert the deleted points', (c) =>
        c.upsert(C, { wait: true, points: points().filter((p) => p.id === U2 || p.id === 4) }),
      );
      await s.call('getCollection after changes', (c) => c.getCollection(C));
    },
  },
];

// Sections that need both the servers' state and each server's own paths.
SECTIONS.push(
  {
    name: 'snapshots: create, list, download, delete, wait',
    run: async (s) => {
      await s.http('list snapshots of an unknown collection', 'GET', '/collections/nope/snapshots');
      await s.http('create a snapshot of an unknown collection', 'POST', '/collections/nope/snapshots?wait=true');
      await s.http('download a snapshot of an unknown collection', 'GET', '/collections/nope/snapshots/x.snapshot');
      const none = must(await s.call('listSnapshots before any', (c) => c.listSnapshots(C)), 'list');
      assert.deepEqual(none, []);
      await s.http('download before any snapshot', 'GET', `/collections/${C}/snapshots/contract.snapshot`);
      const snap = must(await s.call('createSnapshot wait', (c) => c.createSnapshot(C, { wait: true })), 'snapshot');
      assert.ok(snap);
      assert.match(snap.name, new RegExp(`^${C}-\\d+-\\d{4}-\\d\\d-\\d\\d-\\d\\d-\\d\\d-\\d\\d\\.snapshot$`));
      assert.match(snap.checksum ?? '', /^[0-9a-f]{64}$/);
      const listed = must(await s.call('listSnapshots', (c) => c.listSnapshots(C)), 'list');
      assert.ok(listed.some((x) => x.name === snap.name && x.checksum === snap.checksum));
      const dl = await s.http('download the snapshot', 'GET', `/collections/${C}/snapshots/${snap.name}`, {
        headers: ['content-disposition'],
      });
      assert.equal(dl.status, 200);
      s.record('downloaded bytes hash to the checksum and the size', {
        checksum: createHash('sha256').update(dl.raw).digest('hex') === snap.checksum,
        size: dl.raw.length === snap.size,
      });
      await s.http('download an unknown snapshot', 'GET', `/collections/${C}/snapshots/contract.snapshot`);
      await s.http('delete an unknown snapshot', 'DELETE', `/collections/${C}/snapshots/contract.snapshot?wait=true`);
      await s.call('deleteSnapshot an unknown one (client)', (c) => c.deleteSnapshot(C, 'contract.snapshot', { wait: true }));

      // wait=false answers 202 {status: accepted} at once; the client treats 202 as unexpected.
      const accepted = await s.http('create a snapshot with wait=false', 'POST', `/collections/${C}/snapshots?wait=false`);
      assert.equal(accepted.status, 202);
      await s.call('createSnapshot with wait false (client)', (c) => c.createSnapshot(C, { wait: false }));
      // The background snapshots appear later (about a second on Qdrant); wait until the list has been
      // still for 2 s, at least 3 s after the requests. How many there are then depends on the clock:
      // two snapshots in the same second share a name, and the second replaces the first.
      const started = Date.now();
      let names: string[] = [];
      let last = '';
      let stableSince = Date.now();
      while (Date.now() < started + 30_000) {
        const listing = await s.client.listSnapshots(C);
        names = listing.map((x) => x.name);
        const key = JSON.stringify(listing.map((x) => [x.name, x.checksum]).sort());
        if (key !== last) [last, stableSince] = [key, Date.now()];
        else if (Date.now() - stableSince > 2000 && Date.now() - started > 3000) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      s.record(
        'background snapshots settled: 1 to 3 snapshots, names unique',
        names.length >= 1 && names.length <= 3 && new Set(names).size === names.length,
      );
      for (const name of names) await s.client.deleteSnapshot(C, name, { wait: true });
      const first = must(await s.call('createSnapshot', (c) => c.createSnapshot(C)), 'snapshot');
      const second = must(await s.call('createSnapshot right after', (c) => c.createSnapshot(C)), 'snapshot');
      assert.ok(first && second);
      const after = (await s.client.listSnapshots(C)).filter((x) => x.name === first.name || x.name === second.name);
      s.record(
        'a snapshot in the same second replaces the earlier one of that name',
        first.name === second.name ? after.length === 1 && after[0]?.checksum === second.checksum : after.length === 2,
      );
      for (const x of after) await s.client.deleteSnapshot(C, x.name);
      const doomed = must(await s.call('createSnapshot to delete', (c) => c.createSnapshot(C, { wait: true })), 'snapshot');
      assert.ok(doomed);
      assert.equal(must(await s.call('deleteSnapshot with wait', (c) => c.deleteSnapshot(C, doomed.name, { wait: true })), 'delete'), true);
      assert.deepEqual(must(await s.call('listSnapshots after deletes', (c) => c.listSnapshots(C)), 'list'), []);
      await s.call('deleteSnapshot again', (c) => c.deleteSnapshot(C, doomed.name));
    },
  },
  {
    name: 'snapshots: recover by file:// URL, refusals, recover by URL, upload',
    run: async (s) => {
      const before = must(await s.call('count before the snapshot', (c) => c.count(C, { exact: true })), 'count').count;
      const snap = must(await s.call('createSnapshot for recovery', (c) => c.createSnapshot(C, { wait: true })), 'snapshot');
      assert.ok(snap?.checksum);
      const dl = await s.http('download it', 'GET', `/collections/${C}/snapshots/${snap.name}`);
      const file = pathToFileURL(join(s.server.snapshotsDir, C, snap.name)).href;

      // Damage: delete points, change one, add one.
      await s.client.delete(C, { wait: true, filter: { must: [{ key: 'tenant', match: { value: 'acme' } }] } });
      await s.client.upsert(C, { wait: true, points: [{ id: 500, vector: vec(500), payload: { tenant: 'new' } }] });
      assert.notEqual((await s.client.count(C, { exact: true })).count, before);

      // Refusals. A bare snapshot name is not a URL: Qdrant rejects the body before anything else.
      const bare = await s.call('recover by a bare snapshot name', (c) =>
        c.recoverSnapshot(C, { location: 'contract.snapshot', priority: 'snapshot', checksum: snap.checksum ?? undefined }),
      );
      assert.deepEqual(errorOf(bare), {
        status: 400,
        message: 'Format error in JSON body: relative URL without a base: "contract.snapshot" at line 1 column 31',
      });
      await s.http('recover by a bare name (raw body, other key order)', 'PUT', `/collections/${C}/snapshots/recover`, {
        text: '{"priority": "snapshot",\n  "location": "x.snapshot"}',
      });
      await s.http('recover with an empty location', 'PUT', `/collections/${C}/snapshots/recover`, { json: { location: '' } });
      await s.http('recover without a location', 'PUT', `/collections/${C}/snapshots/recover`, { json: {} });
      await s.http('recover with an unknown priority', 'PUT', `/collections/${C}/snapshots/recover`, {
        json: { location: 'file:///contract/x.snapshot', priority: 'bogus' },
      });
      await s.http('recover with a non-string location', 'PUT', `/collections/${C}/snapshots/recover`, { json: { location: 5 } });
      const wrongSum = await s.call('recover with a wrong checksum', (c) =>
        c.recoverSnapshot(C, { location: file, checksum: '0'.repeat(64) }),
      );
      assert.equal(errorOf(wrongSum).status, 400);
      const missingFile = pathToFileURL(join(s.server.snapshotsDir, C, 'missing.snapshot')).href;
      const missing = await s.call('recover a file that does not exist', (c) => c.recoverSnapshot(C, { location: missingFile }));
      assert.equal(errorOf(missing).status, 400);
      const outside = join(s.server.root, 'outside.snapshot');
      await writeFile(outside, dl.raw);
      const forbidden = await s.call('recover a file outside the snapshots directory', (c) =>
        c.recoverSnapshot(C, { location: pathToFileURL(outside).href }),
      );
      assert.equal(errorOf(forbidden).status, 403);
      await s.call('recover a path that climbs out with ..', (c) =>
        c.recoverSnapshot(C, { location: `file://${s.server.snapshotsDir}/${C}/../../outside.snapshot` }),
      );
      await s.call('recover a relative file URL', (c) => c.recoverSnapshot(C, { location: `file://snapshots/${C}/${snap.name}` }));
      await s.call('recover an ftp URL', (c) => c.recoverSnapshot(C, { location: 'ftp://127.0.0.1/x.snapshot' }));
      await s.call('recover from an http URL that answers 401', (c) =>
        c.recoverSnapshot(C, { location: `${s.server.url}/collections/${C}/snapshots/${snap.name}` }),
      );
      await s.call('recover from an unknown collection snapshots dir', (c) =>
        c.recoverSnapshot('nope', { location: pathToFileURL(join(s.server.snapshotsDir, 'nope', snap.name)).href }),
      );
      assert.notEqual((await s.client.count(C, { exact: true })).count, before, 'no refusal recovered anything');

      // Recover by file:// URL inside the snapshots directory, as the server sees it.
      const ok = await s.call('recover by file:// URL with checksum and priority snapshot', (c) =>
        c.recoverSnapshot(C, { location: file, checksum: snap.checksum ?? undefined, priority: 'snapshot' }),
      );
      assert.equal(must(ok, 'recover'), true);
      assert.equal(must(await s.call('count after recover', (c) => c.count(C, { exact: true })), 'count').count, before);
      await s.call('retrieve after recover', (c) => c.retrieve(C, { ids: [1, 2, 500], with_payload: true }));
      const info = must(await s.call('getCollection after recover', (c) => c.getCollection(C)), 'info');
      assert.equal(info.payload_schema['tenant']?.data_type, 'keyword', 'payload indexes come back');
      await s.call('filtered query after recover', (c) =>
        c.query(C, { query: vec(2), filter: validAt('2024-05-15T00:00:00Z'), limit: 3, with_payload: ['tenant'] }),
      );

      // Recover into a collection that does not exist creates it; into one with other vectors is refused.
      assert.equal(must(await s.call('recover into a new collection', (c) => c.recoverSnapshot('copy', { location: file })), 'copy'), true);
      await s.call('getCollection of the copy', (c) => c.getCollection('copy'));
      await s.client.createCollection('other_dim', { vectors: { size: 8, distance: 'Dot' } });
      const incompatible = await s.call('recover into a collection with other vectors', (c) =>
        c.recoverSnapshot('other_dim', { location: file }),
      );
      assert.equal(errorOf(incompatible).status, 400);

      // Recover from an http(s) URL: the server downloads it (its own download endpoint, with api_key).
      await s.client.delete(C, { wait: true, points: [1, 2] });
      const byUrl = await s.call('recover from the server own download URL with api_key', (c) =>
        c.recoverSnapshot(C, { location: `${s.server.url}/collections/${C}/snapshots/${snap.name}`, api_key: s.server.apiKey }),
      );
      assert.equal(must(byUrl, 'recover by URL'), true);
      assert.equal((await s.client.count(C, { exact: true })).count, before);

      // wait=false: 202 at once, recovered in the background.
      await s.client.delete(C, { wait: true, points: [1] });
      const bg = await s.http('recover with wait=false', 'PUT', `/collections/${C}/snapshots/recover?wait=false`, {
        json: { location: file },
      });
      assert.equal(bg.status, 202);
      const until = Date.now() + 30_000;
      while ((await s.client.count(C, { exact: true }).catch(() => ({ count: -1 }))).count !== before && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
      }
      s.record('background recovery finished', (await s.client.count(C, { exact: true })).count === before);

      // Upload: multipart field `snapshot`, priority and checksum in the query.
      const form = () => {
        const f = new FormData();
        f.append('snapshot', new Blob([dl.raw]), 'uploaded.snapshot');
        return f;
      };
      const sum = snap.checksum ?? '';
      const up = await s.http(
        'upload into a new collection',
        'POST',
        `/collections/uploaded/snapshots/upload?priority=snapshot&checksum=${sum}`,
        {
          form: form(),
        },
      );
      assert.equal(up.status, 200);
      await s.call('count of the uploaded collection', (c) => c.count('uploaded', { exact: true }));
      await s.call('listSnapshots of the uploaded collection', (c) => c.listSnapshots('uploaded'));
      await s.client.delete(C, { wait: true, points: [1, 2, 3] });
      await s.http(
        'upload over the damaged collection',
        'POST',
        `/collections/${C}/snapshots/upload?priority=snapshot&checksum=${sum}&wait=true`,
        {
          form: form(),
        },
      );
      assert.equal((await s.client.count(C, { exact: true })).count, before);
      // The effector's recovery by upload sends the archive under its own name: it lands on the original.
      await s.client.delete(C, { wait: true, points: [1] });
      const own = new FormData();
      own.append('snapshot', new Blob([dl.raw]), snap.name);
      await s.http(
        'upload under the snapshot own name',
        'POST',
        `/collections/${C}/snapshots/upload?priority=snapshot&checksum=${sum}&wait=true`,
        {
          form: own,
        },
      );
      assert.equal((await s.client.count(C, { exact: true })).count, before);
      const listedOwn = must(await s.call('listSnapshots after an upload under its own name', (c) => c.listSnapshots(C)), 'list');
      assert.ok(listedOwn.some((x) => x.name === snap.name && x.checksum === snap.checksum));
      await s.http('upload with a wrong checksum', 'POST', `/collections/${C}/snapshots/upload?checksum=${'0'.repeat(64)}`, {
        form: form(),
      });
      // Qdrant refuses a bad query before it reads the body and drops the connection under a client still
      // sending (EPIPE now and then, even for a small body): these refusals retry a connection reset.
      const tiny = {
        bytes: Buffer.from(
          '--contract\r\nContent-Disposition: form-data; name="snapshot"; filename="t.snapshot"\r\n\r\nx\r\n--contract--\r\n',
        ),
        contentType: 'multipart/form-data; boundary=contract',
        retryReset: true,
      };
      await s.http('upload with a malformed checksum', 'POST', `/collections/${C}/snapshots/upload?checksum=abc`, {
        ...tiny,
        looseFormat: true,
      });
      await s.http('upload with a non-hex checksum', 'POST', `/collections/${C}/snapshots/upload?checksum=${'g'.repeat(64)}`, tiny);
      await s.http('upload with an unknown priority', 'POST', `/collections/${C}/snapshots/upload?priority=bogus`, tiny);
      await s.http('upload with an empty body', 'POST', `/collections/${C}/snapshots/upload?priority=bogus`, {
        text: '',
        contentType: 'multipart/form-data; boundary=contract',
      });
      const noField = new FormData();
      noField.append('other', new Blob([dl.raw]), 'x.snapshot');
      await s.http('upload without the snapshot field', 'POST', `/collections/${C}/snapshots/upload`, { form: noField });
      await s.http('upload as a raw body', 'POST', `/collections/${C}/snapshots/upload`, { bytes: dl.raw });
      await s.call('listSnapshots after uploads', (c) => c.listSnapshots(C));
      for (const x of await s.client.listSnapshots(C)) await s.client.deleteSnapshot(C, x.name);
      for (const x of await s.client.listSnapshots('uploaded')) await s.client.deleteSnapshot('uploaded', x.name);
    },
  },
  {
    name: 'aliases: create, list, resolve, atomic swap, refusals',
    run: async (s) => {
      for (const [name, seed] of [
        ['blue', 1],
        ['green', 2],
      ] as const) {
        await s.client.createCollection(name, { vectors: { size: DIM, distance: 'Cosine' } });
        await s.client.createPayloadIndex(name, { field_name: 'colour', field_schema: 'keyword', wait: true });
        await s.client.upsert(name, {
          wait: true,
          points: [1, 2, 3].map((i) => ({ id: i, vector: vec(i + seed), payload: { colour: name, i } })),
        });
      }
      await s.call('getAliases with none', (c) => c.getAliases());
      const create = await s.call('create alias live -> blue', (c) =>
        c.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'blue', alias_name: 'live' } }] }),
      );
      assert.equal(must(create, 'alias'), true);
      await s.call('getAliases', (c) => c.getAliases());
      await s.call('getCollectionAliases of blue', (c) => c.getCollectionAliases('blue'));
      await s.call('getCollectionAliases of the alias name', (c) => c.getCollectionAliases('live'));
      await s.call('getCollectionAliases of an unknown collection', (c) => c.getCollectionAliases('nope'));

      // Every collection endpoint resolves the alias.
      await s.call('collectionExists through the alias', (c) => c.collectionExists('live'));
      await s.call('getCollection through the alias', (c) => c.getCollection('live'));
      await s.call('upsert through the alias', (c) =>
        c.upsert('live', { wait: true, points: [{ id: 10, vector: vec(10), payload: { colour: 'blue', i: 10 } }] }),
      );
      const q = must(
        await s.call('query through the alias', (c) => c.query('live', { query: vec(2), limit: 2, with_payload: true })),
        'query',
      );
      assert.ok(q.points.every((p) => (p.payload as { colour?: string }).colour === 'blue'));
      await s.call('scroll through the alias', (c) => c.scroll('live', { limit: 10, filter: { must: [{ key: 'i', range: { gte: 2 } }] } }));
      await s.call('count through the alias', (c) => c.count('live', { exact: true }));
      await s.call('retrieve through the alias', (c) => c.retrieve('live', { ids: [10], with_payload: true }));
      await s.call('setPayload through the alias', (c) => c.setPayload('live', { wait: true, points: [10], payload: { tagged: true } }));
      await s.call('createPayloadIndex through the alias', (c) =>
        c.createPayloadIndex('live', { field_name: 'i', field_schema: 'integer', wait: true }),
      );
      await s.call('delete through the alias', (c) => c.delete('live', { wait: true, points: [10] }));
      await s.call('getCollection of blue after alias writes', (c) => c.getCollection('blue'));

      // The blue/green swap: delete + create in ONE request.
      const swap = await s.call('atomic swap live -> green', (c) =>
        c.updateCollectionAliases({
          actions: [{ delete_alias: { alias_name: 'live' } }, { create_alias: { collection_name: 'green', alias_name: 'live' } }],
        }),
      );
      assert.equal(must(swap, 'swap'), true);
      const afterSwap = must(
        await s.call('query after the swap', (c) => c.query('live', { query: vec(2), limit: 3, with_payload: true })),
        'query',
      );
      assert.ok(afterSwap.points.every((p) => (p.payload as { colour?: string }).colour === 'green'));
      await s.call('getAliases after the swap', (c) => c.getAliases());
      await s.call('swap back', (c) =>
        c.updateCollectionAliases({
          actions: [{ delete_alias: { alias_name: 'live' } }, { create_alias: { collection_name: 'blue', alias_name: 'live' } }],
        }),
      );
      await s.call('create_alias over an existing alias re-points it', (c) =>
        c.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'green', alias_name: 'live' } }] }),
      );
      await s.call('getAliases after re-pointing', (c) => c.getAliases());
      await s.call('rename_alias', (c) =>
        c.updateCollectionAliases({ actions: [{ rename_alias: { old_alias_name: 'live', new_alias_name: 'serving' } }] }),
      );
      await s.call('rename_alias back', (c) =>
        c.updateCollectionAliases({ actions: [{ rename_alias: { old_alias_name: 'serving', new_alias_name: 'live' } }] }),
      );
      await s.call('two aliases on one collection', (c) =>
        c.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'green', alias_name: 'spare' } }] }),
      );
      const two = must(await s.call('getCollectionAliases of green', (c) => c.getCollectionAliases('green')), 'aliases');
      assert.deepEqual(two.aliases.map((a) => a.alias_name).sort(), ['live', 'spare']);
      await s.call('delete_alias spare', (c) => c.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: 'spare' } }] }));

      // Refusals.
      await s.call('delete_alias of an unknown alias', (c) =>
        c.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: 'ghost' } }] }),
      );
      await s.call('rename_alias of an unknown alias', (c) =>
        c.updateCollectionAliases({ actions: [{ rename_alias: { old_alias_name: 'ghost', new_alias_name: 'x' } }] }),
      );
      await s.call('create_alias named like a collection', (c) =>
        c.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'blue', alias_name: 'green' } }] }),
      );
      await s.call('create_alias to an unknown collection', (c) =>
        c.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'nope', alias_name: 'x' } }] }),
      );
      await s.http('an unknown alias action', 'POST', '/collections/aliases', { json: { actions: [{ bogus: {} }] }, looseFormat: true });
      await s.call('createCollection named like an alias', (c) =>
        c.createCollection('live', { vectors: { size: DIM, distance: 'Cosine' } }),
      );
      await s.call('deleteCollection by the alias name', (c) => c.deleteCollection('live'));
      await s.call('getAliases after deleteCollection(alias)', (c) => c.getAliases());
      // A failing action does not undo the ones before it in the same request.
      const partial = await s.call('swap onto an unknown collection', (c) =>
        c.updateCollectionAliases({
          actions: [{ delete_alias: { alias_name: 'live' } }, { create_alias: { collection_name: 'nope', alias_name: 'live' } }],
        }),
      );
      assert.equal(errorOf(partial).status, 404);
      await s.call('getAliases after the failed swap', (c) => c.getAliases());
      await s.call('query the alias after the failed swap', (c) => c.query('live', { query: vec(1), limit: 1 }));
      await s.call('restore live -> blue', (c) =>
        c.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'blue', alias_name: 'live' } }] }),
      );
    },
  },
  {
    name: 'aliases and snapshots',
    run: async (s) => {
      const snap = must(await s.call('createSnapshot through the alias', (c) => c.createSnapshot('live', { wait: true })), 'snapshot');
      assert.ok(snap);
      assert.match(snap.name, /^blue-/, 'the snapshot is named after the collection, not the alias');
      await s.call('listSnapshots through the alias', (c) => c.listSnapshots('live'));
      await s.call('listSnapshots of the collection', (c) => c.listSnapshots('blue'));
      await s.http('download through the alias', 'GET', `/collections/live/snapshots/${snap.name}`);
      await s.client.delete('live', { wait: true, points: [1, 2] });
      await s.call('recover through the alias from the alias name directory', (c) =>
        c.recoverSnapshot('live', { location: pathToFileURL(join(s.server.snapshotsDir, 'live', snap.name)).href }),
      );
      const ok = await s.call('recover through the alias from the collection directory', (c) =>
        c.recoverSnapshot('live', {
          location: pathToFileURL(join(s.server.snapshotsDir, 'blue', snap.name)).href,
          checksum: snap.checksum ?? undefined,
          priority: 'snapshot',
        }),
      );
      assert.equal(must(ok, 'recover'), true);
      await s.call('count of blue after recover through the alias', (c) => c.count('blue', { exact: true }));
      const aliasDl = await s.http('download through the alias again', 'GET', `/collections/live/snapshots/${snap.name}`);
      const viaAlias = new FormData();
      viaAlias.append('snapshot', new Blob([aliasDl.raw]), snap.name);
      await s.http(
        'upload through the alias',
        'POST',
        `/collections/live/snapshots/upload?priority=snapshot&checksum=${snap.checksum ?? ''}`,
        {
          form: viaAlias,
        },
      );
      // The uploaded archive is kept under the name the request used (the alias), not the collection's.
      s.record('the upload through the alias stays in <snapshots>/live/', {
        live: existsSync(join(s.server.snapshotsDir, 'live', snap.name)),
        blue: existsSync(join(s.server.snapshotsDir, 'blue', snap.name)),
      });
      await s.call('listSnapshots through the alias after the upload', (c) => c.listSnapshots('live'));
      await s.call('getAliases after recover through the alias', (c) => c.getAliases());
      await s.call('deleteSnapshot through the alias', (c) => c.deleteSnapshot('live', snap.name));
      await s.call('listSnapshots of blue after delete', (c) => c.listSnapshots('blue'));
    },
  },
  {
    name: 'restart: collections, indexes, aliases and points persist',
    run: async (s) => {
      await s.server.restart();
      await s.call('getCollections after restart', (c) => c.getCollections());
      await s.call('getAliases after restart', (c) => c.getAliases());
      await s.call('getCollection after restart', (c) => c.getCollection(C));
      await s.call('count through the alias after restart', (c) => c.count('live', { exact: true }));
      await s.call('query after restart', (c) => c.query(C, { query: vec(4), filter: validAt('2024-05-15T00:00:00Z'), limit: 4 }));
    },
  },
  {
    name: 'deleting collections',
    run: async (s) => {
      await s.call('deleteCollection blue (aliased)', (c) => c.deleteCollection('blue'));
      await s.call('getAliases after deleting the aliased collection', (c) => c.getAliases());
      await s.call('collectionExists of the dangling alias name', (c) => c.collectionExists('live'));
      await s.call('deleteCollection an unknown one', (c) => c.deleteCollection('nope'));
      await s.call('createSnapshot before deleting the collection', (c) => c.createSnapshot(C, { wait: true }));
      for (const name of ['green', 'copy', 'uploaded', 'other_dim', C])
        await s.call(`deleteCollection ${name}`, (c) => c.deleteCollection(name));
      // Deleting a collection leaves its snapshots on disk; a collection of the same name lists them again.
      await s.client.createCollection(C, { vectors: { size: DIM, distance: 'Cosine' } });
      const kept = must(await s.call('listSnapshots of a re-created collection', (c) => c.listSnapshots(C)), 'list');
      assert.equal(kept.length, 1);
      await s.client.deleteSnapshot(C, kept[0]?.name ?? '');
      await s.client.deleteCollection(C);
      await s.call('getCollections at the end', (c) => c.getCollections());
      await s.call('listSnapshots of a deleted collection', (c) => c.listSnapshots(C));
    },
  },
);

// ---------------------------------------------------------------------------------------------
// The test

/** Deep equality where numbers that are not integers may differ in the 5th significant decimal (f32 printed by Rust vs Python). */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number')
    return a === b || (!Number.isInteger(a) && Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(a)));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const [ka, kb] = [Object.keys(a).sort(), Object.keys(b).sort()];
    return (
      ka.join('\u0000') === kb.join('\u0000') && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

function differences(real: Entry[], local: Entry[]): string[] {
  const out: string[] = [];
  const n = Math.max(real.length, local.length);
  for (let i = 0; i < n; i += 1) {
    const a = real[i];
    const b = local[i];
    if (!a || !b || a.step !== b.step) {
      out.push(`#${i}: the sequences diverge: Qdrant "${a?.step ?? '(end)'}" vs qdrant-local "${b?.step ?? '(end)'}"`);
      break;
    }
    if (!same(a.answer, b.answer)) {
      out.push(`#${i} ${a.step}\n    Qdrant:       ${JSON.stringify(a.answer)}\n    qdrant-local: ${JSON.stringify(b.answer)}`);
    }
  }
  return out;
}

const binary = newestQdrantBinary();
const python = qdrantLocalPython();
const absent = [binary.why, python.why].filter((x): x is string => Boolean(x));
const required = process.env.QDRANT_CONTRACT_REQUIRED === '1' || Boolean(process.env.CI);
if (absent.length && !required) {
  console.error(`\n${'!'.repeat(100)}\nSKIPPING the Qdrant / qdrant-local contract suite: ${absent.join('; ')}\n${'!'.repeat(100)}\n`);
}

test(
  'qdrant-local answers the project calls as the real Qdrant server does',
  { skip: absent.length && !required ? absent.join('; ') : false, timeout: 900_000 },
  async (t: TestContext) => {
    assert.deepEqual(absent, [], 'both servers are required here (QDRANT_CONTRACT_REQUIRED=1 or CI)');
    const key = `contract-${randomBytes(12).toString('hex')}`;
    const started = await Promise.allSettled([
      startServer('qdrant', binary.path ?? '', key),
      startServer('qdrant-local', python.path ?? '', key),
    ]);
    t.after(async () => {
      await Promise.all(started.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
    });
    const [real, local] = started.map((r) => {
      if (r.status === 'rejected') throw r.reason;
      return r.value;
    }) as [Server, Server];
    const sides = [new Side(real), new Side(local)] as const;
    // QDRANT_CONTRACT_TRANSCRIPT=<file>: both transcripts, normalised, side by side (what Qdrant answered).
    const transcript = process.env.QDRANT_CONTRACT_TRANSCRIPT?.trim();
    if (transcript) {
      t.after(async () => {
        const rows = sides[0].entries.map((e, i) => ({ step: e.step, qdrant: e.answer, 'qdrant-local': sides[1].entries[i]?.answer }));
        await writeFile(transcript, `${JSON.stringify(rows, null, 1)}\n`);
      });
    }
    for (const section of SECTIONS) {
      await t.test(section.name, async () => {
        const [a, b] = sides.map((side) => side.entries.length);
        const results = await Promise.allSettled(sides.map((side) => section.run(side)));
        const diffs = differences(sides[0].entries.slice(a), sides[1].entries.slice(b));
        const failures = results.flatMap((r, i) =>
          r.status === 'rejected' ? [`${sides[i]?.server.kind}: ${String((r.reason as Error)?.stack ?? r.reason)}`] : [],
        );
        assert.deepEqual({ differences: diffs, failures }, { differences: [], failures: [] }, [...diffs, ...failures].join('\n'));
      });
    }
  },
);
