import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { loadStackConfig } from './config.ts';
import { logFilePath } from './process-supervisor.ts';
import { repoRoot } from './repo-root.ts';
import { KNOWN_SERVICES, qdrantChoice, selectServices, stackServices, type QdrantChoice } from './services.ts';
import { qdrantApiKey } from './services/qdrant.ts';
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
  .description(
    'Local RAG Immune stack on 127.0.0.1: kafka, schema-registry, elasticsearch, qdrant (or the stand-in qdrant-local), prometheus',
  )
  .showHelpAfterError();

program
  .command('up')
  .description('install on first use, start and health-wait services (all when none named); no-op for healthy ones')
  .argument('[service...]', 'services to start')
  .action(async (names: string[]) => {
    const stack = manager();
    const t0 = performance.now();
    const choice = qdrantChoice();
    announceQdrant(choice);
    // The real server and the stand-in share the REST port: one replaces the other.
    const other = choice.kind === 'qdrant' ? 'qdrant-local' : choice.kind === 'qdrant-local' ? 'qdrant' : null;
    const rival = KNOWN_SERVICES.find((s) => s.name === other);
    if (names.length === 0 && rival && (await stack.status(rival)).running) {
      log(`${rival.name}: stopping it, ${choice.kind} takes its port`);
      await stack.down(rival);
    }
    for (const service of selectServices(names, choice)) {
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
    if (choice.kind === 'external' && names.length === 0) await checkExternalQdrant(choice.url);
    log(`stack up: total ${seconds(performance.now() - t0)}`);
  });

program
  .command('install')
  .description('install services without starting them (e.g. qdrant-local beside the real server, for the contract suite)')
  .argument('<service...>', 'services to install')
  .action(async (names: string[]) => {
    const stack = manager();
    for (const service of selectServices(names)) {
      const ctx = stack.context(service);
      const t0 = performance.now();
      await service.install(ctx);
      await service.prepare?.(ctx);
      log(`${service.name}: installed (${seconds(performance.now() - t0)})`);
    }
  });

program
  .command('down')
  .description('stop services this stack started (all when none named), in reverse start order')
  .argument('[service...]', 'services to stop')
  .action(async (names: string[]) => {
    const stack = manager();
    // Everything this stack may have started (both vector stores), not only today's choice.
    for (const service of (names.length ? selectServices(names) : [...KNOWN_SERVICES]).reverse()) {
      log(`${service.name}: ${await stack.down(service)}`);
    }
  });

program
  .command('status')
  .description('what runs where: pid, endpoint, healthy')
  .option('--json', 'machine-readable output on stdout')
  .action(async (options: { json?: boolean }) => {
    const stack = manager();
    const defaults = stackServices();
    const all = await Promise.all(KNOWN_SERVICES.map((s) => stack.status(s)));
    const statuses = all.filter((s) => s.running || defaults.some((d) => d.name === s.service));
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

/** Which vector store this stack uses, said once per `up`; the stand-in loudly. */
function announceQdrant(choice: QdrantChoice): void {
  if (choice.kind === 'qdrant') log(`qdrant: the real Qdrant server, ${choice.binary} (from ${choice.from})`);
  else if (choice.kind === 'external') log(`qdrant: not started here, QDRANT_URL=${choice.url} (an existing Qdrant)`);
  else {
    const bar = '!'.repeat(100);
    log(
      `${bar}\nqdrant-local: ${choice.why}.\nProduction and CI use the real server: bash scripts/install-qdrant.sh <qdrant-…-linux-x86_64.gz>, or QDRANT_BINARY=/path/to/qdrant.\n${bar}`,
    );
  }
}

/** An existing Qdrant must answer with the key the workers will send. */
async function checkExternalQdrant(url: string): Promise<void> {
  const key = qdrantApiKey(manager().context(KNOWN_SERVICES.find((s) => s.name === 'qdrant')!).serviceDir);
  const response = await fetch(`${url.replace(/\/$/, '')}/collections`, {
    headers: key ? { 'api-key': key } : {},
    signal: AbortSignal.timeout(5000),
  }).catch((error: Error) => {
    throw new Error(`QDRANT_URL=${url} is unreachable: ${error.message}`);
  });
  if (!response.ok) throw new Error(`QDRANT_URL=${url} answered GET /collections with HTTP ${response.status} (is QDRANT_API_KEY right?)`);
  log(`qdrant: ${url} answers`);
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  log(`stack: ${(error as Error).message}`);
  process.exitCode = 1;
}
