import { Command, InvalidArgumentError } from 'commander';
import { MemoryClient, MemoryUnavailableError, type Recommendation, type RecommendRequest } from '@rag-immune/memory-client';
import { emit } from '../output.ts';
import { CliError, ExitCode } from '../exit-codes.ts';
import { indexDiffLines, type IndexDiffView } from '../index-diff-view.ts';

/**
 * `immune cases`: the memory worker's healing cases and what it would recommend, over its HTTP API
 * (--url, default $IMMUNE_MEMORY_URL or the worker's default port; token from $IMMUNE_API_TOKEN or
 * --token, never printed).
 */
const DEFAULT_URL = process.env.IMMUNE_MEMORY_URL ?? 'http://127.0.0.1:9467';

interface ConnectionOptions {
  url: string;
  token?: string;
  json: boolean;
}

/** The parts of a case document this command prints (the worker serves the whole HealingCase). */
export interface CaseView {
  case_id: string;
  incident_id: string;
  environment: string;
  outcome: string;
  intents: string[];
  recovered_by: string | null;
  time_to_recovery_ms: number | null;
  incident_at: number;
  signature_text: string;
  signature: {
    root_cause: RecommendRequest['root_cause'];
    affected_component: RecommendRequest['affected_component'];
    confidence: number;
    claims: { kind: string; metric: string; observed: number; baseline: number | null }[];
    affected_knowledge_ids: string[];
    /** What changed in the online index, as the report said (absent on older cases, null when none was read). */
    index_diff?: IndexDiffView | null;
  } | null;
  actions: { intent: string; tool: string; status: string; attempt: number; first_at: number }[];
  card: {
    status: string;
    importance: number;
    access_count: number;
    duplicate_count: number;
    created_at: string;
    updated_at: string;
    last_used_at: string | null;
    superseded_by: string | null;
    source_event_ids: string[];
    history: { field: string; from: unknown; to: unknown; reason: string; at: string; related_case_id?: string }[];
  };
}

function connect(options: ConnectionOptions): MemoryClient {
  const token = options.token ?? process.env.IMMUNE_API_TOKEN;
  return new MemoryClient({ baseUrl: options.url, timeoutMs: 10_000, ...(token ? { token } : {}) });
}

/** Maps the client's error to the CLI's exit codes: 404 no input, 401/403 usage, else unavailable. */
async function call<T>(what: () => Promise<T>): Promise<T> {
  try {
    return await what();
  } catch (error) {
    if (!(error instanceof MemoryUnavailableError)) throw error;
    const status = Number(/answered (\d{3})/.exec(error.message)?.[1] ?? 0);
    if (status === 404) throw new CliError(error.message, ExitCode.noInput);
    if (status === 401 || status === 403) throw new CliError(`${error.message} (set IMMUNE_API_TOKEN or --token)`, ExitCode.usage);
    if (status >= 400 && status < 500) throw new CliError(error.message, ExitCode.dataError);
    throw new CliError(error.message, ExitCode.unavailable);
  }
}

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 500) throw new InvalidArgumentError('must be an integer from 1 to 500');
  return n;
};

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

function caseLine(c: CaseView): string {
  const cause = c.signature ? `${c.signature.root_cause}/${c.signature.affected_component}` : '(no report yet)';
  return `${c.case_id}  ${c.card.status.padEnd(10)} ${c.outcome.padEnd(9)} ${cause.padEnd(44)} ${(c.intents.join(' > ') || '-').padEnd(50)} ${c.incident_id}`;
}

export function caseDetail(c: CaseView): string {
  const lines = [
    `case        ${c.case_id}`,
    `incident    ${c.incident_id} (environment ${c.environment}) at ${iso(c.incident_at)}`,
    `cause       ${c.signature ? `${c.signature.root_cause} in ${c.signature.affected_component} (confidence ${c.signature.confidence})` : '(no report yet)'}`,
    `signature   ${c.signature_text}`,
    `outcome     ${c.outcome}${c.recovered_by ? ` by ${c.recovered_by}` : ''}${c.time_to_recovery_ms === null ? '' : ` in ${(c.time_to_recovery_ms / 1000).toFixed(1)} s`}`,
    `card        ${c.card.status}, importance ${c.card.importance}, used ${c.card.access_count}x (last ${c.card.last_used_at ?? 'never'}), stands for ${c.card.duplicate_count} case(s)${c.card.superseded_by ? `, superseded by ${c.card.superseded_by}` : ''}`,
    `            created ${c.card.created_at}, updated ${c.card.updated_at}, ${c.card.source_event_ids.length} source events`,
  ];
  for (const claim of c.signature?.claims ?? [])
    lines.push(`claim       ${claim.kind} ${claim.metric}: ${claim.baseline ?? '?'} -> ${claim.observed}`);
  if (c.signature?.index_diff) lines.push(...indexDiffLines(c.signature.index_diff, 'index      '));
  for (const a of c.actions) lines.push(`action      ${iso(a.first_at)} ${a.intent} via ${a.tool} (attempt ${a.attempt}): ${a.status}`);
  for (const h of c.card.history)
    lines.push(
      `history     ${h.at} ${h.field} ${String(h.from)} -> ${String(h.to)} (${h.reason}${h.related_case_id ? `, ${h.related_case_id}` : ''})`,
    );
  return lines.join('\n');
}

function recommendationText(r: Recommendation): string {
  const lines = [
    `incident    ${r.incident_id}`,
    `source      ${r.source}${r.degraded ? ' (DEGRADED: a case store was unreachable)' : ''}${r.rules_version ? `, rules ${r.rules_version}` : ''}`,
    `reason      ${r.reason}`,
    `confidence  ${r.confidence}${r.top_similarity === null ? '' : `, best case similarity ${r.top_similarity}`}`,
    `strategy    ${r.strategy.map((s, i) => `${i + 1}. ${s.intent}${s.tool ? ` (${s.tool})` : ''}`).join('  ')}`,
  ];
  for (const c of r.citations)
    lines.push(`cites       ${c.case_id}  similarity ${c.similarity}  ${c.outcome.padEnd(9)} ${c.intents.join(' > ')}`);
  lines.push(`audit       ${r.audit_id}`);
  return lines.join('\n');
}

export function casesCommand(): Command {
  const cases = new Command('cases').description("The memory worker's healing cases and its recommendations (memory HTTP API)");
  const withConnection = (command: Command) =>
    command
      .option('--url <url>', 'memory API (env IMMUNE_MEMORY_URL)', DEFAULT_URL)
      .option('--token <token>', 'memory API token (default: env IMMUNE_API_TOKEN)')
      .option('--json', 'JSON output', false);

  withConnection(
    cases
      .command('list')
      .description('List cases, most recently updated first')
      .option('--status <status>', 'active, superseded or archived')
      .option('--cause <root_cause>', 'only this root cause')
      .option('--outcome <outcome>', 'recovered, failed, escalated or open')
      .option('--limit <n>', 'at most this many (1-500)', positiveInt, 50),
  ).action(async (options: ConnectionOptions & { status?: string; cause?: string; outcome?: string; limit: number }) => {
    const query = new URLSearchParams({ limit: String(options.limit) });
    if (options.status) query.set('status', options.status);
    if (options.cause) query.set('root_cause', options.cause);
    if (options.outcome) query.set('outcome', options.outcome);
    const page = (await call(() => connect(options).get(`/cases?${query.toString()}`))) as { total: number; cases: CaseView[] };
    if (options.json) {
      for (const c of page.cases) emit(true, c, () => '');
      return;
    }
    for (const c of page.cases) process.stdout.write(`${caseLine(c)}\n`);
    process.stdout.write(`${page.cases.length} of ${page.total} case(s)\n`);
  });

  withConnection(cases.command('show <id>').description('One case by case id (or by incident id)')).action(
    async (id: string, options: ConnectionOptions) => {
      const client = connect(options);
      const found = (await call(() =>
        client.get(`/cases/${encodeURIComponent(id)}`).catch((error: unknown) => {
          if (error instanceof MemoryUnavailableError && /answered 404/.test(error.message))
            return client.get(`/cases/by-incident/${encodeURIComponent(id)}`);
          throw error;
        }),
      )) as CaseView;
      emit(options.json, found, () => caseDetail(found));
    },
  );

  withConnection(
    cases
      .command('recommend')
      .description('What memory would recommend for an incident it has a case for, with the cases it rests on')
      .requiredOption('--incident <id>', 'incident id')
      .option('--environment <name>', 'environment of the incident', 'default'),
  ).action(async (options: ConnectionOptions & { incident: string; environment: string }) => {
    const client = connect(options);
    const found = (await call(() =>
      client.get(`/cases/by-incident/${encodeURIComponent(options.incident)}?environment=${encodeURIComponent(options.environment)}`),
    )) as CaseView;
    if (found.signature === null)
      throw new CliError(`incident ${options.incident} has no root-cause report yet: nothing to recommend from`, ExitCode.dataError);
    const recommendation = await call(() =>
      client.recommend(
        {
          incident_id: found.incident_id,
          root_cause: found.signature!.root_cause,
          affected_component: found.signature!.affected_component,
          environment: found.environment,
          claims: found.signature!.claims.map(({ kind, metric, observed, baseline }) => ({ kind, metric, observed, baseline })),
          affected_knowledge_ids: found.signature!.affected_knowledge_ids,
        },
        10_000,
      ),
    );
    emit(options.json, recommendation, () => recommendationText(recommendation));
  });
  return cases;
}
