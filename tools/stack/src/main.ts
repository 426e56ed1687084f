import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { loadStackConfig } from './config.ts';
import { logFilePath } from './process-supervisor.ts';
import { repoRoot } from './repo-root.ts';
import { selectServices, STACK_SERVICES } from './services.ts';
import { StackManager } from './stack-manager.ts';

/** Operator progress goes to stderr so that `status --json` stays clean on stdout. */
const log = (message: string): void => void process.stderr.write(`${message}\n`);

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

function manager(): StackManager {
  const root = repoRoot();
  return new StackManager(loadStackConfig(root), root, log);
}

const program = new Command()
  .name('stack')
  .description('Local RAG Immune stack on 127.0.0.1: kafka, schema-registry, elasticsearch, qdrant-local, prometheus')
  .showHelpAfterError();

program
  .command('up')
  .description('install on first use, start and health-wait services (all when none named); no-op for healthy ones')
  .argument('[service...]', 'services to start')
  .action(async (names: string[]) => {
    const stack = manager();
    const t0 = performance.now();
    for (const service of selectServices(names)) {
      // Sequential on purpose: JVM start-up is CPU-bound and the target machine has 2 cores.
      const r = await stack.up(service);
      if (r.outcome === 'already-running') {
        log(`${r.service}: already running (pid ${r.pid}) at ${r.endpoint}`);
      } else {
        log(
          `${r.service}: healthy, ${r.temperature} start ${seconds(r.installMs + r.startMs)} (install/prepare ${seconds(r.installMs)}, start-to-healthy ${seconds(r.startMs)}), pid ${r.pid}, ${r.endpoint}`,
        );
      }
    }
    log(`stack up: total ${seconds(performance.now() - t0)}`);
  });

program
  .command('down')
  .description('stop services this stack started (all when none named), in reverse start order')
  .argument('[service...]', 'services to stop')
  .action(async (names: string[]) => {
    const stack = manager();
    for (const service of selectServices(names).reverse()) {
      log(`${service.name}: ${await stack.down(service)}`);
    }
  });

program
  .command('status')
  .description('what runs where: pid, endpoint, healthy')
  .option('--json', 'machine-readable output on stdout')
  .action(async (options: { json?: boolean }) => {
    const stack = manager();
    const statuses = await Promise.all(STACK_SERVICES.map((s) => stack.status(s)));
    if (options.json) {
      process.stdout.write(`${JSON.stringify(statuses, null, 2)}\n`);
      return;
    }
    for (const s of statuses) {
      const state = s.running ? (s.healthy ? 'healthy' : 'UNHEALTHY') : 'stopped';
      process.stdout.write(`${s.service.padEnd(16)} ${state.padEnd(10)} pid ${String(s.pid ?? '-').padEnd(8)} ${s.endpoint}\n`);
    }
  });

program
  .command('logs')
  .description("print a service's log (stdout+stderr of the server)")
  .argument('<service>', 'service name')
  .option('-n, --lines <n>', 'lines to show', '200')
  .option('-f, --follow', 'keep printing new lines')
  .action(async (name: string, options: { lines: string; follow?: boolean }) => {
    const [service] = selectServices([name]);
    const file = logFilePath(manager().context(service!).serviceDir, name);
    if (!existsSync(file)) throw new Error(`${name} has no log yet (${file}); start it with: npm run stack -- up ${name}`);
    const tail = spawn('tail', ['-n', options.lines, ...(options.follow ? ['-F'] : []), file], { stdio: 'inherit' });
    await new Promise<void>((resolve) => tail.once('exit', () => resolve()));
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  log(`stack: ${(error as Error).message}`);
  process.exitCode = 1;
}
