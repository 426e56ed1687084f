import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { LaunchSpec } from './service.ts';

const execFileAsync = promisify(execFile);

/** True when the stack CLI runs as root (CI containers, fresh machines). */
export function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** Idempotent `useradd --system`; exit code 9 means another install created it meanwhile. */
export async function ensureSystemUser(user: string): Promise<void> {
  try {
    await execFileAsync('id', ['-u', user]);
    return;
  } catch {
    // Not there yet.
  }
  try {
    await execFileAsync('useradd', ['--system', '--no-create-home', '--user-group', '--shell', '/usr/sbin/nologin', user]);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 9) throw new Error(`cannot create system user ${user}: ${(error as Error).message}`);
  }
}

/**
 * The launch spec wrapped in `runuser -u <user> --`: runuser stays the recorded pid, forwards
 * SIGTERM to the server, and the server gets no root rights. HOME points at its own folder (the
 * JVM and Python look there) instead of root's.
 */
export function unprivilegedSpec(spec: LaunchSpec, user: string, home: string): LaunchSpec {
  return {
    ...spec,
    command: 'runuser',
    args: ['-u', user, '--', spec.command, ...spec.args],
    env: { ...spec.env, HOME: home },
  };
}

/**
 * As root, runs a server as the stack's system user owning only its service folder; the server
 * keeps root only where it cannot work otherwise (the checkout is not reachable for that user,
 * e.g. below /root with mode 700), which is said in the log. Not root: the spec as it is.
 */
export async function dropPrivileges(
  spec: LaunchSpec,
  options: { user: string; serviceDir: string; service: string; log: (message: string) => void },
): Promise<LaunchSpec> {
  if (!runsAsRoot() || spec.command === 'runuser' || spec.user !== undefined) return spec;
  await ensureSystemUser(options.user);
  await execFileAsync('chown', ['-R', `${options.user}:`, options.serviceDir]);
  const wrapped = unprivilegedSpec(spec, options.user, options.serviceDir);
  try {
    // The user must reach the folder, the program and its working directory.
    const reachable = [options.serviceDir, ...(spec.cwd ? [spec.cwd] : [])];
    await execFileAsync('runuser', ['-u', options.user, '--', 'test', '-w', options.serviceDir]);
    for (const dir of reachable) await execFileAsync('runuser', ['-u', options.user, '--', 'test', '-x', dir]);
    if (spec.command.startsWith('/')) await execFileAsync('runuser', ['-u', options.user, '--', 'test', '-x', spec.command]);
  } catch {
    options.log(
      `${options.service}: user ${options.user} cannot reach ${options.serviceDir} or its program; running as root ` +
        '(make every folder above the checkout searchable by others, chmod o+x, to drop root)',
    );
    return spec;
  }
  return wrapped;
}
