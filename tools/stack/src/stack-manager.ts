import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StackConfig } from './config.ts';
import {
  isOurProcess,
  logFilePath,
  readPidRecord,
  removePidRecord,
  startProcess,
  stopProcess,
  tailFile,
  writePidRecord,
} from './process-supervisor.ts';
import type { StackContext, StackService } from './service.ts';
import { dropPrivileges } from './unprivileged.ts';

/** Grace period between SIGTERM and SIGKILL: Kafka needs a few seconds to close its logs cleanly. */
const STOP_GRACE_MS = 30_000;
const HEALTH_POLL_MS = 250;
const LOCK_WAIT_MS = 5 * 60_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface UpResult {
  service: string;
  outcome: 'started' | 'already-running';
  /** Cold = first start in this .stack (install/download and data preparation included). */
  temperature: 'cold' | 'warm';
  installMs: number;
  startMs: number;
  pid: number;
  endpoint: string;
}

export interface ServiceStatus {
  service: string;
  running: boolean;
  healthy: boolean;
  pid: number | null;
  endpoint: string;
  logFile: string;
  startedAt: string | null;
}

export class StackManager {
  constructor(
    private readonly config: StackConfig,
    private readonly repoRoot: string,
    private readonly log: (message: string) => void,
  ) {}

  private get stackDir(): string {
    return join(this.repoRoot, '.stack');
  }

  context(service: StackService): StackContext {
    return {
      config: this.config,
      repoRoot: this.repoRoot,
      stackDir: this.stackDir,
      serviceDir: join(this.stackDir, service.name),
      log: this.log,
    };
  }

  /** Installs (first use), prepares, starts and health-waits one service; a no-op when it already runs healthy. */
  async up(service: StackService): Promise<UpResult> {
    const ctx = this.context(service);
    await mkdir(ctx.serviceDir, { recursive: true });
    return this.withServiceLock(ctx, service, () => this.upLocked(service, ctx));
  }

  private async upLocked(service: StackService, ctx: StackContext): Promise<UpResult> {
    const coldMarker = join(ctx.serviceDir, '.started-once');
    const temperature = existsSync(coldMarker) ? 'warm' : 'cold';

    const existing = await readPidRecord(ctx.serviceDir, service.name);
    if (existing && (await isOurProcess(existing))) {
      const t0 = performance.now();
      await this.waitHealthy(service, ctx, existing.pid, existing.logFile);
      return {
        service: service.name,
        outcome: 'already-running',
        temperature,
        installMs: 0,
        startMs: performance.now() - t0,
        pid: existing.pid,
        endpoint: service.endpoint(ctx),
      };
    }
    if (existing) await removePidRecord(ctx.serviceDir, service.name); // stale: that process is gone

    const t0 = performance.now();
    await service.install(ctx);
    await service.prepare?.(ctx);
    const installMs = performance.now() - t0;

    await this.refuseBusyPort(service, ctx);
    const t1 = performance.now();
    // As root, the servers run as the stack's system user (Elasticsearch switches by itself).
    const spec = await dropPrivileges(await service.launch(ctx), {
      user: this.config.serverUser,
      serviceDir: ctx.serviceDir,
      service: service.name,
      log: this.log,
    });
    const record = await startProcess(spec, logFilePath(ctx.serviceDir, service.name));
    await writePidRecord(ctx.serviceDir, service.name, record);
    await this.waitHealthy(service, ctx, record.pid, record.logFile);
    await service.afterStart?.(ctx);
    const startMs = performance.now() - t1;
    await writeFile(coldMarker, `${new Date().toISOString()}\n`);
    return { service: service.name, outcome: 'started', temperature, installMs, startMs, pid: record.pid, endpoint: service.endpoint(ctx) };
  }

  /** Stops a service only through its pid file, and only if that pid still runs our command. */
  async down(service: StackService): Promise<'stopped' | 'killed' | 'not-running'> {
    const ctx = this.context(service);
    if (!existsSync(ctx.serviceDir)) return 'not-running';
    return this.withServiceLock(ctx, service, () => this.downLocked(service, ctx));
  }

  private async downLocked(service: StackService, ctx: StackContext): Promise<'stopped' | 'killed' | 'not-running'> {
    const record = await readPidRecord(ctx.serviceDir, service.name);
    if (!record) return 'not-running';
    if (!(await isOurProcess(record))) {
      await removePidRecord(ctx.serviceDir, service.name);
      return 'not-running';
    }
    const how = await stopProcess(record, STOP_GRACE_MS);
    await removePidRecord(ctx.serviceDir, service.name);
    return how === 'terminated' ? 'stopped' : 'killed';
  }

  async status(service: StackService): Promise<ServiceStatus> {
    const ctx = this.context(service);
    const record = await readPidRecord(ctx.serviceDir, service.name);
    const running = record !== undefined && (await isOurProcess(record));
    return {
      service: service.name,
      running,
      healthy: running ? await service.healthy(ctx) : false,
      pid: running ? record.pid : null,
      endpoint: service.endpoint(ctx),
      logFile: logFilePath(ctx.serviceDir, service.name),
      startedAt: running ? record.startedAt : null,
    };
  }

  /**
   * One `up`/`down` per service at a time: two terminals (or a test script and a developer)
   * starting the same server would otherwise race on its pid file and port. A lock whose
   * holder died is taken over.
   */
  private async withServiceLock<T>(ctx: StackContext, service: StackService, work: () => Promise<T>): Promise<T> {
    const lock = join(ctx.serviceDir, '.lock');
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let announced = false; ;) {
      try {
        await writeFile(lock, `${process.pid}\n`, { flag: 'wx' });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      if (!holder || !processAlive(holder)) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${service.name}: still locked by pid ${holder} (${lock})`);
      if (!announced) this.log(`${service.name}: waiting for pid ${holder}, which is starting or stopping it`);
      announced = true;
      await sleep(500);
    }
    try {
      return await work();
    } finally {
      await rm(lock, { force: true });
    }
  }

  private async waitHealthy(service: StackService, ctx: StackContext, pid: number, logFile: string): Promise<void> {
    const deadline = Date.now() + service.startTimeoutMs;
    const record = await readPidRecord(ctx.serviceDir, service.name);
    while (Date.now() < deadline) {
      if (await service.healthy(ctx)) return;
      if (record && !(await isOurProcess(record))) {
        await removePidRecord(ctx.serviceDir, service.name);
        throw new Error(
          `${service.name} (pid ${pid}) exited before it became healthy; last log lines (${logFile}):\n${await tailFile(logFile, 30)}`,
        );
      }
      await sleep(HEALTH_POLL_MS);
    }
    throw new Error(
      `${service.name} (pid ${pid}) not healthy after ${service.startTimeoutMs / 1000}s; it is left running, see ${logFile}:\n${await tailFile(logFile, 20)}`,
    );
  }

  /** Someone else on our port would make health checks lie; refuse with the port named. */
  private async refuseBusyPort(service: StackService, ctx: StackContext): Promise<void> {
    const match = /(\d+\.\d+\.\d+\.\d+):(\d+)/.exec(service.endpoint(ctx));
    if (!match) return;
    const [, host, port] = match as unknown as [string, string, string];
    const busy = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port: Number(port) });
      socket.setTimeout(1000);
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('timeout', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(false));
    });
    if (busy) {
      throw new Error(
        `${service.name}: ${host}:${port} is already in use by a process this stack did not start; stop it or change the port (stack.config.json / STACK_* env)`,
      );
    }
  }
}
