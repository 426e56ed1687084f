/**
 * Child processes of a loop run (reference RAGs, the four workers): each is a plain `node --import tsx`
 * process (no npx wrapper, so a SIGKILL hits the worker itself), its stdout and stderr go straight to
 * a log file under the run directory (never to the screen), and readiness is read from that file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, statSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { repoRoot } from '@rag-immune/stack';
import { sleep } from './wait.ts';

/**
 * The low end of the kernel's ephemeral range (outgoing connections take their local ports there).
 * Linux's default is 32768; read from /proc where it exists.
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 1024 ? low : 32768;
  } catch {
    return 32768;
  }
}

const handedOut = new Set<number>();

/** Listens on `port` (0: the kernel picks) on loopback and closes again: the port it got, or null if taken. */
function listenOnce(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : null;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A TCP port free right now on loopback, for a child that must be told its port. Drawn at random
 * below the ephemeral range (from 20000): a port the kernel picks (listen on 0) is an ephemeral one,
 * and between the pick and the child's listen (seconds, while a RAG ingests) an outgoing connection
 * can take it (bench:healing, 2026-12-07: rag-baseline EADDRINUSE on 46353). Never the same port twice
 * in one process. The stack's fixed ports (16333, 18081, 19090, 19092, 19200) are below 20000.
 */
export async function freePort(): Promise<number> {
  const low = 20_000;
  const high = ephemeralLow() - 1;
  for (let i = 0; high > low && i < 100; i++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    handedOut.add(port); // before the await: concurrent callers never draw it too
    if ((await listenOnce(port)) !== null) return port;
    handedOut.delete(port);
  }
  const picked = await listenOnce(0);
  if (picked === null) throw new Error('freePort: no loopback port could be bound');
  return picked;
}

/** One JSON log line of a child (pino), or the raw text when it is not JSON. */
export interface LogRecord {
  line: string;
  json: Record<string, unknown> | null;
  /** When the harness read it (ms since epoch); pino's own `time` is in `json.time`. */
  readAt: number;
}

/**
 * Follows a growing log file from a byte offset; a poll reads whatever was appended since. Polling
 * (not fs.watch) because it works the same for every file system and costs nothing at 4 Hz.
 */
export class LogFollower {
  private offset: number;
  private partial = '';

  constructor(
    readonly path: string,
    fromStart = false,
  ) {
    this.offset = fromStart || !existsSync(path) ? 0 : statSync(path).size;
  }

  read(): LogRecord[] {
    if (!existsSync(this.path)) return [];
    const size = statSync(this.path).size;
    if (size < this.offset) this.offset = 0;
    if (size === this.offset) return [];
    const fd = openSync(this.path, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset = size;
      const text = this.partial + buffer.toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
      const readAt = Date.now();
      return lines
        .filter((line) => line.trim() !== '')
        .map((line) => {
          let json: Record<string, unknown> | null = null;
          if (line.startsWith('{')) {
            try {
              json = JSON.parse(line) as Record<string, unknown>;
            } catch {
              json = null;
            }
          }
          return { line, json, readAt };
        });
    } finally {
      closeSync(fd);
    }
  }
}

export interface ProcessSpec {
  /** Name in logs and file names, e.g. `identifier-1`. */
  name: string;
  /** Entry point relative to the repository root, e.g. `services/identifier/src/main.ts`. */
  entry: string;
  env: Record<string, string>;
  /** Log file (stdout and stderr, appended across restarts). */
  logFile: string;
  /** The log line that says the process is ready. */
  ready: (record: LogRecord) => boolean;
  /** Port of its /healthz, when it has one (checked after the ready line). */
  healthPort?: () => number | undefined;
  /** How long start-up may take (model loading on 2 cores is slow). */
  startTimeoutMs?: number;
}

export class ProcessStartError extends Error {
  constructor(
    readonly spec: ProcessSpec,
    message: string,
  ) {
    super(`${spec.name}: ${message} (log: ${spec.logFile})`);
    this.name = 'ProcessStartError';
  }
}

/** Variables a parent test runner sets that must not leak into a worker. */
const NOT_INHERITED = ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'NODE_CHANNEL_FD', 'OTEL_EXPORTER_OTLP_ENDPOINT'];

/** Every child this process started and has not seen exit: killed if the harness itself exits. */
const living = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of living) child.kill('SIGKILL');
  });
  // A test runner that times a file out, or Ctrl-C in the demo, ends the harness with a signal, which
  // skips 'exit' handlers by default: take the children down first so none is left orphaned.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.once(signal, () => {
      for (const child of living) child.kill('SIGKILL');
      process.exit(128 + (signal === 'SIGHUP' ? 1 : signal === 'SIGINT' ? 2 : 15));
    });
}

/** A child process that can be started, SIGKILLed and restarted with the same settings. */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  /** Lines read from its log since the last start. */
  readonly records: LogRecord[] = [];
  private follower: LogFollower | undefined;
  starts = 0;

  constructor(readonly spec: ProcessSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the process and waits for its ready line (and a 200 from /healthz when it has a port). */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.spec.name} already running (pid ${this.pid})`);
    installExitHook();
    this.follower = new LogFollower(this.spec.logFile);
    this.records.length = 0;
    const fd = openSync(this.spec.logFile, 'a');
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !NOT_INHERITED.includes(key)) env[key] = value;
    Object.assign(env, this.spec.env);
    const child = spawn(process.execPath, ['--import', 'tsx', this.spec.entry], { cwd: repoRoot(), env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    this.child = child;
    this.starts += 1;
    living.add(child);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        living.delete(child);
        resolve(code);
      }),
    );
    await this.waitForReady();
  }

  private async waitForReady(): Promise<void> {
    const deadline = Date.now() + (this.spec.startTimeoutMs ?? 180_000);
    let ready = false;
    while (Date.now() < deadline) {
      this.poll();
      if (!this.running) {
        const tail = this.records.slice(-5).map((r) => r.line.slice(0, 300));
        throw new ProcessStartError(
          this.spec,
          `exited with ${this.child?.exitCode ?? this.child?.signalCode} before it was ready:\n  ${tail.join('\n  ')}`,
        );
      }
      if (!ready && this.records.some(this.spec.ready)) ready = true;
      if (ready) {
        const port = this.spec.healthPort?.();
        if (port === undefined) return;
        try {
          const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
          if (response.status === 200) return;
        } catch {
          // not listening yet
        }
      }
      await sleep(250);
    }
    throw new ProcessStartError(this.spec, `not ready within ${this.spec.startTimeoutMs ?? 180_000} ms`);
  }

  /** Reads what the process logged since the last poll. */
  poll(): LogRecord[] {
    const fresh = this.follower?.read() ?? [];
    this.records.push(...fresh);
    return fresh;
  }

  /** Waits until a log line matches (the process must stay alive meanwhile). */
  async waitForLog(match: (record: LogRecord) => boolean, timeoutMs: number, fromIndex = 0): Promise<LogRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.poll();
      const hit = this.records.slice(fromIndex).find(match);
      if (hit !== undefined) return hit;
      if (!this.running) throw new Error(`${this.spec.name} exited while waiting for a log line`);
      if (Date.now() > deadline)
        throw new Error(`${this.spec.name}: no matching log line within ${timeoutMs} ms (log: ${this.spec.logFile})`);
      await sleep(50);
    }
  }

  /** SIGKILL: no shutdown hook runs, as when a node dies. Resolves when the process is gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM and wait (graceful shutdown); SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.child?.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Restarts it (SIGKILL first if it still runs); `env` changes apply from this start on (undefined removes). */
  async restart(env: Record<string, string | undefined> = {}): Promise<void> {
    await this.kill();
    for (const [key, value] of Object.entries(env)) {
      if (value === undefined) delete this.spec.env[key];
      else this.spec.env[key] = value;
    }
    await this.start();
  }
}

/** Matches pino's `{"msg":"<text>"}` line. */
export const logMessage =
  (text: string) =>
  (record: LogRecord): boolean =>
    typeof record.json?.msg === 'string' && record.json.msg === text;
