import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Harness } from './harness.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface EffectorProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<boolean>;
}

/** The bus and stack settings of the harness as the environment of a separate effector process. */
export function processEnv(h: Harness, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...h.env,
    KAFKA_BROKERS: h.busConfig.brokers.join(','),
    SCHEMA_REGISTRY_URL: h.busConfig.schemaRegistryUrl,
    BUS_TOPIC_PREFIX: h.busConfig.topicPrefix,
    EFFECTOR_FCS_THREADS: '1',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** `npx tsx services/effector/src/main.ts` as its own process; resolves when it logs `effector listening`. */
export async function spawnEffector(env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<EffectorProcess> {
  // Its own process group: npx → tsx → node; a stop signals the whole group, leaving no orphan.
  const child = spawn('npx', ['tsx', 'services/effector/src/main.ts'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`effector did not start within ${timeoutMs} ms:\n${output.slice(-3000)}`)), timeoutMs);
    const check = () => {
      const line = output.split('\n').find((l) => l.includes('"msg":"effector listening"'));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`effector exited with ${code} before listening:\n${output.slice(-3000)}`));
    });
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    /** SIGTERM to the group; resolves true when the effector logged its graceful shutdown and every process exited. */
    async stop() {
      try {
        process.kill(-(child.pid as number), 'SIGTERM');
      } catch {
        return false;
      }
      await exited;
      await new Promise((resolve) => setTimeout(resolve, 500));
      return output.includes('"msg":"shutting down gracefully"');
    },
  };
}

/** Runs the `immune` CLI; resolves with its exit code and output. */
export function immune(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['tsx', 'apps/cli/src/main.ts', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
