import type { QdrantClient } from '@qdrant/js-client-rest';
import {
  BaselineError,
  baselineInstructions,
  createBaseline,
  defaultAlias,
  describeBaseline,
  refreshBaseline,
  type BaselineOptions,
  type BaselineRecord,
} from '@rag-immune/baseline';
import cliProgress from 'cli-progress';
import { Command } from 'commander';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { emit } from '../output.ts';
import { CliError, ExitCode } from '../exit-codes.ts';

interface BaselineFlags {
  source: string;
  alias?: string;
  qdrantUrl: string;
  reason?: string;
  actor: string;
  json: boolean;
}

function withQdrantOptions(command: Command): Command {
  return command
    .requiredOption('--source <collection>', "your RAG's Qdrant collection or alias")
    .option('--alias <name>', 'the alias the baseline RAG instance reads (default: <source>-baseline)')
    .option(
      '--qdrant-url <url>',
      'Qdrant (env QDRANT_URL; the API key from env QDRANT_API_KEY)',
      process.env.QDRANT_URL ?? 'http://127.0.0.1:16333',
    )
    .option('--actor <name>', 'who made the baseline, recorded with it (default: env USER)', process.env.USER ?? 'unknown')
    .option('--json', 'one JSON document on stdout', false);
}

function client(flags: BaselineFlags): QdrantClient {
  // The one Qdrant policy (keep-alive under the server's, safe resends): a baseline copy is many requests.
  return createQdrantClient({ url: flags.qdrantUrl, apiKey: process.env.QDRANT_API_KEY?.trim() || undefined });
}

/** Qdrant's refusals and our own keep their message; an unreachable Qdrant exits 69. */
async function run<T>(flags: BaselineFlags, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BaselineError) throw new CliError(error.message, ExitCode.dataError);
    const message = error instanceof Error ? error.message : String(error);
    if (/fetch failed|ECONNREFUSED|ENOTFOUND/.test(message))
      throw new CliError(`Qdrant unreachable at ${flags.qdrantUrl}: ${message}`, ExitCode.unavailable);
    if (/Unauthorized|Forbidden|401|403/.test(message))
      throw new CliError(`Qdrant refused the API key (QDRANT_API_KEY): ${message}`, ExitCode.noPermission);
    throw error;
  }
}

function progress(json: boolean): { onProgress: (copied: number, total: number) => void; stop: () => void } {
  if (json || !process.stderr.isTTY) return { onProgress: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: 'baseline copy |{bar}| {value}/{total} points | eta {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress: (copied, total) => {
      if (!started) bar.start(total, 0);
      started = true;
      bar.update(copied);
    },
    stop: () => started && bar.stop(),
  };
}

/** Runs a copy (create or refresh) with a progress bar and prints what to run next. */
async function copy(flags: BaselineFlags, make: (options: BaselineOptions) => Promise<BaselineRecord>): Promise<void> {
  const bar = progress(flags.json);
  const record = await run(flags, () =>
    make({
      qdrant: client(flags),
      source: flags.source,
      ...(flags.alias ? { alias: flags.alias } : {}),
      actor: flags.actor,
      reason: flags.reason ?? '',
      onProgress: bar.onProgress,
    }),
  ).finally(bar.stop);
  emit(flags.json, record, () => baselineInstructions(record));
}

/** `immune baseline create|refresh|show`: a frozen baseline copied from the RAG's own Qdrant collection. */
export function baselineCommand(): Command {
  const baseline = new Command('baseline').description(
    "A frozen baseline copied from your RAG's own Qdrant collection, for a second RAG instance to serve",
  );

  withQdrantOptions(baseline.command('create'))
    .description('Copy the collection (every point, any payload layout) into a pinned collection behind <source>-baseline')
    .option('--reason <text>', 'why, recorded with the baseline', 'first baseline')
    .action((flags: BaselineFlags) => copy(flags, createBaseline));

  withQdrantOptions(baseline.command('refresh'))
    .description('After an intended knowledge update: copy again and move the alias atomically (the previous copy is kept)')
    .requiredOption('--reason <text>', 'why the baseline changes (recorded; every comparison is judged against it)')
    .action((flags: BaselineFlags) => copy(flags, refreshBaseline));

  withQdrantOptions(baseline.command('show'))
    .description('The baseline behind the alias: its copy, source, size, when, by whom and why')
    .action(async (flags: BaselineFlags) => {
      const alias = flags.alias ?? defaultAlias(flags.source);
      const record = await run(flags, () => describeBaseline(client(flags), alias));
      if (record === null) throw new CliError(`no baseline behind alias ${alias}`, ExitCode.noInput);
      emit(flags.json, record, () =>
        [
          `${record.alias} -> ${record.collection}`,
          `  source   ${record.source_alias ?? record.source_collection} (${record.source_collection}), ${record.points} points`,
          `  made     ${record.created_at} by ${record.actor}: ${record.reason}`,
          `  replaces ${record.previous ?? '-'}`,
        ].join('\n'),
      );
    });

  return baseline;
}
