import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { StackContext, StackService } from '../service.ts';
import { qdrantApiKey } from './qdrant.ts';

const execFileAsync = promisify(execFile);

/**
 * qdrant-local: a LOCAL STAND-IN for the Qdrant server (no registry ships the server). It is a
 * small Python HTTP server (tools/qdrant-local) over Qdrant Edge (PyPI qdrant-edge-py) that serves
 * the subset of Qdrant's REST API the project uses, with Qdrant's request/response shapes, so the
 * same @qdrant/js-client-rest code talks to real Qdrant in production unchanged.
 * tools/stack/test/integration/qdrant-contract.test.ts holds its answers against the real server's.
 */
function paths(ctx: StackContext) {
  const source = join(ctx.repoRoot, 'tools', 'qdrant-local');
  const venv = join(ctx.serviceDir, 'venv');
  return {
    source,
    requirements: join(source, 'requirements.txt'),
    venv,
    python: join(venv, 'bin', 'python'),
    stamp: join(venv, '.rag-immune-requirements.sha256'),
    data: join(ctx.serviceDir, 'data'),
    // Where qdrant-local has always kept them; recover by file:// accepts only files inside it.
    snapshots: join(ctx.serviceDir, 'data', 'snapshots'),
  };
}

function url(ctx: StackContext): string {
  return `http://${ctx.config.host}:${ctx.config.qdrant.port}`;
}

async function run(command: string, args: string[]): Promise<void> {
  try {
    await execFileAsync(command, args, { maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`qdrant-local: ${command} ${args.join(' ')} failed: ${(e.stderr || e.stdout || e.message).trim()}`);
  }
}

export const qdrantLocal: StackService = {
  name: 'qdrant-local',
  startTimeoutMs: 30_000,

  /** Creates the venv and pip-installs the pinned requirements; skipped while the stamp matches. */
  async install(ctx) {
    const p = paths(ctx);
    const requirements = await readFile(p.requirements, 'utf8');
    const hash = createHash('sha256').update(requirements).digest('hex');
    const stamp = existsSync(p.stamp) ? (await readFile(p.stamp, 'utf8')).trim() : '';
    if (stamp === hash && existsSync(p.python)) return;

    await mkdir(ctx.serviceDir, { recursive: true });
    if (existsSync(p.venv) && !existsSync(p.python)) await rm(p.venv, { recursive: true, force: true });
    if (!existsSync(p.python)) {
      ctx.log(`qdrant-local: creating venv ${p.venv}`);
      await run('python3', ['-m', 'venv', p.venv]);
    }
    ctx.log('qdrant-local: pip install -r tools/qdrant-local/requirements.txt (qdrant-edge-py)');
    await run(p.python, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', p.requirements]);
    await writeFile(p.stamp, `${hash}\n`);
  },

  async prepare(ctx) {
    await mkdir(paths(ctx).data, { recursive: true });
  },

  /**
   * qdrant-local reads the real server's QDRANT__* variables, so it is given the same environment:
   * its snapshots directory, and the stack's Qdrant API key when there is one (QDRANT_API_KEY, or
   * the key the qdrant service generated), so clients send the same key to either server. The key
   * goes in the environment, never on the command line (which `ps` shows).
   */
  async launch(ctx) {
    const p = paths(ctx);
    const apiKey = qdrantApiKey(join(dirname(ctx.serviceDir), 'qdrant'));
    return {
      command: p.python,
      args: ['-m', 'qdrant_local', '--host', ctx.config.host, '--port', String(ctx.config.qdrant.port), '--data-dir', p.data],
      cwd: p.source,
      env: {
        PYTHONPATH: p.source,
        PYTHONUNBUFFERED: '1',
        QDRANT__STORAGE__SNAPSHOTS_PATH: p.snapshots,
        ...(apiKey ? { QDRANT__SERVICE__API_KEY: apiKey } : {}),
      },
    };
  },

  async healthy(ctx) {
    try {
      const response = await fetch(`${url(ctx)}/`, { signal: AbortSignal.timeout(2000) });
      if (response.status !== 200) return false;
      // Qdrant's root answers a bare VersionInfo {title, version, commit}.
      const body = (await response.json()) as { title?: unknown; version?: unknown };
      return typeof body.title === 'string' && typeof body.version === 'string';
    } catch {
      return false;
    }
  },

  endpoint(ctx) {
    return url(ctx);
  },
};
