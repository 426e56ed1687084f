import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LaunchSpec } from './service.ts';

const MAX_LOG_BYTES = 50 * 1024 * 1024;

/** What `up` records about a process it started; `down` kills only what matches this record. */
export interface PidRecord {
  pid: number;
  /** Exact argv as launched; compared with /proc/<pid>/cmdline before any signal is sent. */
  argv: string[];
  startedAt: string;
  logFile: string;
}

export function pidFilePath(serviceDir: string, name: string): string {
  return join(serviceDir, `${name}.pid.json`);
}

export function logFilePath(serviceDir: string, name: string): string {
  return join(serviceDir, `${name}.log`);
}

export async function readPidRecord(serviceDir: string, name: string): Promise<PidRecord | undefined> {
  const path = pidFilePath(serviceDir, name);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(await readFile(path, 'utf8')) as PidRecord;
  } catch {
    return undefined; // A torn or hand-edited file is treated as "nothing we started".
  }
}

export async function removePidRecord(serviceDir: string, name: string): Promise<void> {
  await rm(pidFilePath(serviceDir, name), { force: true });
}

/**
 * True only while `pid` is alive AND still runs the exact command we launched. A recycled pid
 * (or a zombie, whose cmdline is empty) never matches, so we never signal a stranger.
 */
export async function isOurProcess(record: PidRecord): Promise<boolean> {
  try {
    const raw = await readFile(`/proc/${record.pid}/cmdline`, 'utf8');
    const argv = raw.split('\0');
    if (argv.at(-1) === '') argv.pop();
    return argv.length === record.argv.length && argv.every((arg, i) => arg === record.argv[i]);
  } catch {
    return false;
  }
}

function resolveUser(user: string): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a server detached in its own process group, so it outlives the CLI and `down` can
 * signal the whole group (servers that fork helpers). stdout and stderr append to `logFile`.
 */
export async function startProcess(spec: LaunchSpec, logFile: string): Promise<PidRecord> {
  // Servers log to stdout with no rotation of their own; keep one previous generation per start.
  if (existsSync(logFile) && statSync(logFile).size > MAX_LOG_BYTES) renameSync(logFile, `${logFile}.1`);
  const fd = openSync(logFile, 'a');
  try {
    writeSync(fd, `\n==== ${new Date().toISOString()} stack: starting ${spec.command} ${spec.args.join(' ')}\n`);
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      detached: true,
      stdio: ['ignore', fd, fd],
      ...(spec.user ? resolveUser(spec.user) : {}),
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new Error(`cannot start ${spec.command}: ${error.message}`)));
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`cannot start ${spec.command}: no pid`);
    return { pid: child.pid, argv: [spec.command, ...spec.args], startedAt: new Date().toISOString(), logFile };
  } finally {
    closeSync(fd);
  }
}

export async function writePidRecord(serviceDir: string, name: string, record: PidRecord): Promise<void> {
  await writeFile(pidFilePath(serviceDir, name), `${JSON.stringify(record, null, 2)}\n`);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal); // The group exists because we spawned it detached.
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** SIGTERM, wait up to `graceMs` for a clean exit (Kafka flushes logs), then SIGKILL. */
export async function stopProcess(record: PidRecord, graceMs: number): Promise<'terminated' | 'killed'> {
  signalGroup(record.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!(await isOurProcess(record))) return 'terminated';
    await sleep(200);
  }
  signalGroup(record.pid, 'SIGKILL');
  for (let i = 0; i < 50 && (await isOurProcess(record)); i++) await sleep(100);
  return 'killed';
}

/** Last lines of a log, for error messages that should say why a server died (reads only the end). */
export async function tailFile(path: string, lines: number): Promise<string> {
  if (!existsSync(path)) return '';
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer
      .toString('utf8')
      .split('\n')
      .slice(-lines - 1)
      .join('\n');
  } finally {
    await handle.close();
  }
}
