import { errorBodyMessage, jsonOrUndefined } from '@rag-immune/contracts';
import { FAULT_KINDS as RAG_FAULT_KINDS } from '@rag-immune/rag-contract';
import { Command, InvalidArgumentError } from 'commander';
import { emit } from '../output.ts';
import { CliError, ExitCode } from '../exit-codes.ts';

export { RAG_FAULT_KINDS };

const DEFAULT_URL = process.env.REFERENCE_RAG_URL ?? 'http://127.0.0.1:18400';

function parseKind(value: string): string {
  if (!(RAG_FAULT_KINDS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`unknown fault kind "${value}"; expected one of ${RAG_FAULT_KINDS.join(', ')}`);
  }
  return value;
}

function parseFraction(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new InvalidArgumentError('must be a number in (0, 1]');
  return n;
}

/** Calls the admin API; unreachable → 69, a refusal (4xx) → 65 with the server's message. */
async function admin(baseUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const url = `${baseUrl.replace(/\/+$/, '')}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      signal: AbortSignal.timeout(60_000),
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        // The admin API needs the instance's token unless it runs token-less on loopback.
        ...(process.env.RAG_API_TOKEN ? { authorization: `Bearer ${process.env.RAG_API_TOKEN}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new CliError(
      `reference RAG unreachable at ${baseUrl}: ${error instanceof Error ? error.message : String(error)}`,
      ExitCode.unavailable,
    );
  }
  const text = await response.text();
  const json = jsonOrUndefined(text);
  if (!response.ok) {
    const message = errorBodyMessage(json, text);
    throw new CliError(
      `${method} ${path}: HTTP ${response.status}: ${message}`,
      response.status >= 500 ? ExitCode.failure : ExitCode.dataError,
    );
  }
  return json;
}

interface ActiveFault {
  kind: string;
  mode: string;
  injected_at: string;
  affected_knowledge_ids: string[] | null;
}

const describe = (fault: ActiveFault): string =>
  `${fault.kind} (${fault.mode}) since ${fault.injected_at}` +
  (fault.affected_knowledge_ids === null ? '' : `, ${fault.affected_knowledge_ids.length} knowledge ids affected`);

/** `immune rag faults list|inject|undo`: drive the reference RAG's fault injection for demos and drills. */
export function ragCommand(): Command {
  const rag = new Command('rag').description('Drive the reference RAG (fault injection for demos, tests and drills)');
  const faults = rag.command('faults').description('List, inject and undo faults in the reference RAG');

  faults
    .command('list')
    .description('Show the fault kinds and the active faults')
    .option('--url <url>', 'reference RAG base URL (env REFERENCE_RAG_URL)', DEFAULT_URL)
    .option('--json', 'print the JSON answer', false)
    .action(async (options: { url: string; json: boolean }) => {
      const result = (await admin(options.url, 'GET', '/admin/faults')) as { kinds: string[]; active: ActiveFault[] };
      emit(options.json, result, () =>
        result.active.length === 0 ? `no active faults (kinds: ${result.kinds.join(', ')})` : result.active.map(describe).join('\n'),
      );
    });

  faults
    .command('inject')
    .description('Inject a fault; the answer says which knowledge it affects')
    .argument('<kind>', RAG_FAULT_KINDS.join(' | '), parseKind)
    .option('--mode <mode>', 'fault mode (e.g. perturb|zero|drop, merge-sections|boilerplate, stale|frozen)')
    .option('--fraction <f>', 'fraction of knowledge ids affected (default 0.5)', parseFraction)
    .option('--seed <seed>', 'seed of the affected-knowledge pick')
    .option('--knowledge-id <id...>', 'affect exactly these knowledge ids')
    .option('--url <url>', 'reference RAG base URL (env REFERENCE_RAG_URL)', DEFAULT_URL)
    .option('--json', 'print the JSON answer', false)
    .action(
      async (
        kind: string,
        options: { mode?: string; fraction?: number; seed?: string; knowledgeId?: string[]; url: string; json: boolean },
      ) => {
        const scope = {
          ...(options.fraction === undefined ? {} : { fraction: options.fraction }),
          ...(options.seed === undefined ? {} : { seed: options.seed }),
          ...(options.knowledgeId === undefined ? {} : { knowledge_ids: options.knowledgeId }),
        };
        const body = {
          ...(options.mode === undefined ? {} : { mode: options.mode }),
          ...(Object.keys(scope).length === 0 ? {} : { scope }),
        };
        const result = (await admin(options.url, 'POST', `/admin/faults/${kind}`, body)) as { fault: ActiveFault; journal: { at: string } };
        emit(options.json, result, () => `injected ${describe(result.fault)}; journalled at ${result.journal.at}`);
      },
    );

  faults
    .command('undo')
    .description('Undo an active fault')
    .argument('<kind>', RAG_FAULT_KINDS.join(' | '), parseKind)
    .option('--url <url>', 'reference RAG base URL (env REFERENCE_RAG_URL)', DEFAULT_URL)
    .option('--json', 'print the JSON answer', false)
    .action(async (kind: string, options: { url: string; json: boolean }) => {
      const result = (await admin(options.url, 'DELETE', `/admin/faults/${kind}`)) as { journal: { at: string } };
      emit(options.json, result, () => `undid ${kind}; journalled at ${result.journal.at}`);
    });

  return rag;
}
