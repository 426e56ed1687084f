import { Command, InvalidArgumentError } from 'commander';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import {
  GoldenProbeSchema,
  InvalidProbeFileError,
  ProbeCatalog,
  ProbeSetBuilder,
  applyRotation,
  defaultProbeSetOptions,
  defaultThresholds,
  detectability,
  intentCoverage,
  defaultRotationOptions,
  parseQueryLog,
  planRotation,
  readOnlineFcsHistory,
  type GoldenProbe,
  type RagPort,
} from '@rag-immune/probing';
import { EventBus } from '@rag-immune/bus';
import { RagClient } from '@rag-immune/rag-contract';
import { AdapterFileError, adapterClientFromFile } from '@rag-immune/rag-adapter';
import { cliBusConfig } from '../connection.ts';
import { fileURLToPath } from 'node:url';
import { emit } from '../output.ts';
import { CliError, ExitCode } from '../exit-codes.ts';
import { callWorkerApi } from '../worker-api.ts';

/** The probe file used when neither --file nor SENTINEL_PROBES_FILE says otherwise. */
export function defaultProbeFile(): string {
  return (
    process.env.SENTINEL_PROBES_FILE ?? fileURLToPath(new URL('../../../../services/sentinel/probes/golden-probes.jsonl', import.meta.url))
  );
}

const ragAdapterOption = [
  '--rag-adapter <file>',
  "ask the RAG through this declarative adapter (packages/rag-adapter) instead of the health contract's POST /query; --rag is its ${base_url}",
] as const;

/** The RAG at `url`: the contract client, or the RAG's own API through its adapter (a bad file exits 78 naming the key). */
function ragPort(url: string, adapterFile: string | undefined): RagPort {
  if (adapterFile === undefined) return new RagClient({ baseUrl: url });
  try {
    return adapterClientFromFile(adapterFile, { baseUrl: url });
  } catch (error) {
    if (error instanceof AdapterFileError) throw new CliError(error.message, ExitCode.config);
    throw error;
  }
}

async function loadCatalog(path: string): Promise<ProbeCatalog> {
  try {
    return await ProbeCatalog.load(path);
  } catch (error) {
    if (error instanceof InvalidProbeFileError) {
      const missing = error.issues.some((i) => i.line === 0);
      throw new CliError(
        error.issues.map((i) => `${path}:${i.line}: ${i.message}`).join('\n'),
        missing ? ExitCode.noInput : ExitCode.dataError,
      );
    }
    throw error;
  }
}

function parseValue(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be a number from 0 to 1');
  return n;
}

export function probesCommand(): Command {
  const probes = new Command('probes').description('Inspect and maintain the golden probe set the sentinel runs');
  const fileOption = ['-f, --file <path>', 'probe file (JSON Lines); default $SENTINEL_PROBES_FILE or the shipped set'] as const;

  probes
    .command('list')
    .description('List probes with their status')
    .option(...fileOption)
    .option('--all', 'include retired probes', false)
    .option('--json', 'one JSON object per line', false)
    .action(async (options: { file?: string; all: boolean; json: boolean }) => {
      const catalog = await loadCatalog(options.file ?? defaultProbeFile());
      const active = new Set(catalog.active().map((p) => p.id));
      for (const probe of catalog.probes) {
        if (!options.all && !active.has(probe.id)) continue;
        emit(
          options.json,
          { ...probe, active: active.has(probe.id) },
          () =>
            `${active.has(probe.id) ? 'active ' : 'retired'}  ${probe.id.padEnd(48)} v${probe.version}  ${probe.cluster.padEnd(8)} ${probe.expected_sources.join(',')}  ${probe.query}`,
        );
      }
    });

  probes
    .command('validate')
    .description(
      'Check a probe file; every bad line is reported with its number (exit 65). With --rag, also measure each active ' +
        'probe on a clean RAG and reject probes that can never fire (clean FCS too low to drop by the threshold, and no IC to drop)',
    )
    .argument('[file]', 'probe file; default as for list')
    .option('--rag <url>', 'a clean RAG (health contract) to measure each active probe against')
    .option(...ragAdapterOption)
    .option('--fcs-drop <x>', 'the sentinel FCS drop threshold the probes must be able to cross', parseValue, defaultThresholds.fcsDrop)
    .option('--ic-drop <x>', 'the sentinel IC drop threshold', parseValue, defaultThresholds.icDrop)
    .option('--json', 'machine-readable result', false)
    .action(
      async (file: string | undefined, options: { rag?: string; ragAdapter?: string; fcsDrop: number; icDrop: number; json: boolean }) => {
        const path = file ?? defaultProbeFile();
        const catalog = await loadCatalog(path);
        if (options.rag === undefined) {
          emit(
            options.json,
            { file: path, valid: true, probes: catalog.probes.length, active: catalog.active().length },
            () => `${path}: ${catalog.probes.length} probes, ${catalog.active().length} active, valid`,
          );
          return;
        }
        // Before the model loads: a bad adapter file stops at once.
        const rag = ragPort(options.rag, options.ragAdapter);
        const { FactConsistencyScorer } = await import('@rag-immune/fcs');
        const fcs = await FactConsistencyScorer.load();
        const rejected: string[] = [];
        for (const probe of catalog.active()) {
          let response;
          try {
            response = await rag.query({ query: probe.query });
          } catch (error) {
            throw new CliError(`${options.rag}: ${(error as Error).message}`, ExitCode.unavailable);
          }
          const scored =
            response.answer.trim() === ''
              ? { score: null }
              : await fcs.score({
                  question: probe.query,
                  // A chunk the RAG gave no id is labelled by rank: a label for the scorer only.
                  evidence: response.chunks.map((c, i) => ({ id: c.chunk_id ?? `#${i + 1}`, text: c.text })),
                  answer: response.answer,
                });
          const ic = intentCoverage(probe.query, response.answer, response.abstained ?? false).ic;
          const gate = detectability({ fcs: scored.score, ic }, { fcsDrop: options.fcsDrop, icDrop: options.icDrop });
          if (gate.verdict === 'rejected') rejected.push(probe.id);
          emit(
            options.json,
            { probe_id: probe.id, fcs: scored.score, ic, verdict: gate.verdict, reason: gate.reason },
            () => `${gate.verdict.padEnd(8)} ${probe.id.padEnd(48)} ${gate.reason}`,
          );
        }
        if (rejected.length > 0)
          throw new CliError(`${path}: ${rejected.length} probe(s) can never fire: ${rejected.join(', ')}`, ExitCode.dataError);
        process.stderr.write(`${path}: ${catalog.active().length} active probes can fire\n`);
      },
    );

  probes
    .command('add')
    .description('Add a probe to the file (an existing id is refused: bump versions deliberately)')
    .requiredOption('--id <id>', 'probe id, e.g. openssl-latest-version')
    .requiredOption('--query <text>', 'the golden query')
    .requiredOption('--source <knowledgeId...>', 'knowledge id(s) the answer must come from')
    .option('--value <0..1>', 'business value', parseValue, 0.5)
    .option('--cluster <name>', "'head' or the long-tail cluster it represents", 'manual')
    .option(...fileOption)
    .option('--json', 'print the added probe as JSON', false)
    .action(
      async (options: { id: string; query: string; source: string[]; value: number; cluster: string; file?: string; json: boolean }) => {
        const path = options.file ?? defaultProbeFile();
        const catalog = existsSync(path) ? await loadCatalog(path) : ProbeCatalog.empty(path);
        const candidate = {
          id: options.id,
          version: 1,
          query: options.query,
          expected_sources: options.source,
          business_value: options.value,
          cluster: options.cluster,
          created_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          retired_at: null,
        };
        const parsed = GoldenProbeSchema.safeParse(candidate);
        if (!parsed.success)
          throw new CliError(
            parsed.error.issues.map((i) => `--${String(i.path[0]).replace('expected_sources', 'source')}: ${i.message}`).join('; '),
            ExitCode.usage,
          );
        let next: ProbeCatalog;
        try {
          next = catalog.withProbe(parsed.data as GoldenProbe);
        } catch (error) {
          throw new CliError((error as Error).message, ExitCode.dataError);
        }
        await next.save();
        emit(options.json, parsed.data, () => `added ${parsed.data.id} to ${path}`);
      },
    );

  probes
    .command('build')
    .description('Build a probe set from a query log: head queries, k-means long-tail representatives, kept when fragile and attributable')
    .requiredOption('--query-log <file>', 'JSON Lines of {query, count, business_value?}')
    .requiredOption('--rag <url>', 'the RAG to measure fragility and attribution against (health contract)')
    .option(...ragAdapterOption)
    .option('-o, --out <file>', 'write the probe file here (refuses to overwrite without --force)')
    .option('--force', 'overwrite --out', false)
    .option('--size <n>', 'probes wanted', parsePositive, defaultProbeSetOptions.size)
    .option('--runs <n>', 'runs per candidate for the FCS spread', parsePositive, defaultProbeSetOptions.runs)
    .option('--fragility <std>', 'minimum FCS standard deviation', parseValue, defaultProbeSetOptions.fragilityThreshold)
    .option('--attribution <share>', 'minimum share of retrieval weight on one source', parseValue, defaultProbeSetOptions.attributionShare)
    .option('--seed <n>', 'k-means seed', parsePositive, defaultProbeSetOptions.seed)
    .option('--json', 'print every candidate verdict as JSON', false)
    .action(async (options: BuildOptions) => {
      if (options.out !== undefined && existsSync(options.out) && !options.force)
        throw new CliError(`${options.out} exists; pass --force to overwrite`, ExitCode.usage);
      let log;
      try {
        log = parseQueryLog(await readFile(options.queryLog, 'utf8'));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code === 'ENOENT' ? ExitCode.noInput : ExitCode.dataError;
        throw new CliError(`${options.queryLog}: ${(error as Error).message}`, code);
      }
      const rag = ragPort(options.rag, options.ragAdapter);
      const { embedder, fcs } = await loadModels();
      const builder = new ProbeSetBuilder(
        { embed: (texts) => embedder.embed(texts), rag, fcs },
        {
          ...defaultProbeSetOptions,
          size: options.size,
          runs: options.runs,
          fragilityThreshold: options.fragility,
          attributionShare: options.attribution,
          seed: options.seed,
          now: new Date(),
        },
      );
      const report = await builder.build(log);
      for (const verdict of report.verdicts)
        emit(
          options.json,
          verdict,
          () => `${verdict.accepted ? 'keep' : 'drop'}  ${verdict.cluster.padEnd(8)} ${verdict.query}  — ${verdict.reason}`,
        );
      if (options.out !== undefined) await ProbeCatalog.empty(options.out).withProbes(report.probes).save();
      process.stderr.write(
        `${report.probes.length} of ${options.size} probes built from ${log.length} distinct queries${options.out ? `, written to ${options.out}` : ''}\n`,
      );
      if (report.probes.length === 0) process.exitCode = ExitCode.failure;
    });

  probes
    .command('rotate')
    .description('Retire probes whose online FCS stayed above 0.95 or below 0.3; dry run unless --apply')
    .option(...fileOption)
    .option('--since-hours <h>', 'history window read back from rag-sentinel-probes', parsePositive, 24 * 7)
    .option('--min-runs <n>', 'runs needed before a probe can be retired', parsePositive, defaultRotationOptions.minRuns)
    .option('--query-log <file>', 'propose replacements from this query log (needs --rag)')
    .option('--rag <url>', 'RAG used to vet replacements')
    .option(...ragAdapterOption)
    .option('--apply', 'write the retirements and replacements to the probe file', false)
    .option('--json', 'one JSON object per decision', false)
    .action(async (options: RotateOptions) => {
      const path = options.file ?? defaultProbeFile();
      const catalog = await loadCatalog(path);
      const bus = new EventBus(cliBusConfig());
      await bus.start(['probes']).catch((error: unknown) => {
        throw new CliError(`cannot reach Kafka or the schema registry: ${String(error)}`, ExitCode.unavailable);
      });
      const history = await readOnlineFcsHistory(bus, Date.now() - options.sinceHours * 3_600_000);
      await bus.stop();
      const decisions = planRotation(catalog.active(), history, { ...defaultRotationOptions, minRuns: options.minRuns });
      for (const d of decisions)
        emit(
          options.json,
          { probe_id: d.probe.id, runs: d.runs, min_fcs: d.min, max_fcs: d.max, retire: d.retire, reason: d.reason },
          () =>
            `${d.retire ? 'retire' : 'keep  '}  ${d.probe.id.padEnd(48)} runs=${d.runs} fcs=[${d.min?.toFixed(2) ?? '-'}, ${d.max?.toFixed(2) ?? '-'}]  ${d.reason}`,
        );
      const retiring = decisions.filter((d) => d.retire).length;
      let replacements: GoldenProbe[] = [];
      if (retiring > 0 && options.queryLog !== undefined) {
        if (options.rag === undefined) throw new CliError('--query-log needs --rag to vet replacements', ExitCode.usage);
        const rag = ragPort(options.rag, options.ragAdapter);
        const known = new Set(catalog.probes.map((p) => p.query.toLowerCase()));
        const log = parseQueryLog(await readFile(options.queryLog, 'utf8')).filter((e) => !known.has(e.query.toLowerCase()));
        const { embedder, fcs } = await loadModels();
        const builder = new ProbeSetBuilder(
          { embed: (t) => embedder.embed(t), rag, fcs },
          { ...defaultProbeSetOptions, size: retiring, now: new Date() },
        );
        replacements = (await builder.build(log)).probes.map((p) => ({ ...p, id: `${p.id}-r${Date.now().toString(36)}` }));
        for (const r of replacements) emit(options.json, { propose: r }, () => `propose ${r.id}  ${r.query}`);
      }
      if (!options.apply) {
        process.stderr.write(`dry run: ${retiring} to retire, ${replacements.length} replacements proposed; --apply writes ${path}\n`);
        return;
      }
      await catalog.withProbes(applyRotation(catalog.probes, decisions, replacements, new Date())).save();
      process.stderr.write(`${path}: ${retiring} retired, ${replacements.length} added\n`);
    });

  addProposalCommands(probes);
  return probes;
}

interface SentinelApiOptions {
  url: string;
  token?: string;
  json: boolean;
}

interface ProposalChange {
  kind: 'retire' | 'add';
  rule: string;
  probe_id: string;
  query: string;
  reason: string;
}

interface Proposal {
  proposal_id: string;
  created_at: string;
  state: string;
  changes: ProposalChange[];
  considered: Record<string, unknown>;
  declined: { query: string; rule: string; reason: string }[];
  decided_at: string | null;
  decided_by: string | null;
}

/** A proposal as a reviewer reads it: every change with its rule and reason, then what was turned down. */
export function renderProposal(p: Proposal): string {
  const lines = [
    `${p.proposal_id}  ${p.state}  made ${p.created_at}${p.decided_by ? `  ${p.state} by ${p.decided_by} at ${p.decided_at}` : ''}`,
    `  from: ${Object.entries(p.considered)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ')}`,
  ];
  if (p.changes.length === 0) lines.push('  no change proposed');
  for (const c of p.changes) lines.push(`  ${c.kind.padEnd(6)} ${c.probe_id}  [${c.rule}]  ${c.query}`, `         why: ${c.reason}`);
  for (const d of p.declined) lines.push(`  declined [${d.rule}] ${d.query}: ${d.reason}`);
  return lines.join('\n');
}

/**
 * `immune probes proposal|propose|accept|reject`: the probe-set rotation's proposals, through the
 * sentinel's API (its token from --token or IMMUNE_API_TOKEN; deciding needs the operate role).
 */
function addProposalCommands(probes: Command): void {
  const withApi = (command: Command) =>
    command
      .option('--url <url>', 'sentinel API (env IMMUNE_SENTINEL_URL)', process.env.IMMUNE_SENTINEL_URL ?? 'http://127.0.0.1:9464')
      .option('--token <token>', 'sentinel API token (default: env IMMUNE_API_TOKEN)')
      .option('--json', 'one JSON document on stdout', false);
  const call = <T>(options: SentinelApiOptions, method: string, path: string) =>
    callWorkerApi<T>({
      worker: 'sentinel',
      url: options.url,
      method,
      path,
      token: options.token ?? process.env.IMMUNE_API_TOKEN,
      timeoutMs: 600_000,
    });

  withApi(
    probes
      .command('proposal')
      .description('Show the probe-set rotation proposals (default: the newest, and the last schedule check) or one by id')
      .argument('[id]', 'proposal id (rot-...)')
      .option('--all', 'every kept proposal', false),
  ).action(async (id: string | undefined, options: SentinelApiOptions & { all: boolean }) => {
    if (id !== undefined) {
      const { proposal } = await call<{ proposal: Proposal }>(options, 'GET', `/probes/proposals/${encodeURIComponent(id)}`);
      emit(options.json, proposal, () => renderProposal(proposal));
      return;
    }
    const listed = await call<{ proposals: Proposal[]; last_check: { at: string; outcome: string; detail: string } | null }>(
      options,
      'GET',
      '/probes/proposals',
    );
    const shown = options.all ? listed.proposals : listed.proposals.slice(-1);
    emit(options.json, { proposals: shown, last_check: listed.last_check }, () =>
      [
        ...(shown.length === 0 ? ['No proposal yet.'] : shown.map(renderProposal)),
        listed.last_check ? `last check ${listed.last_check.at}: ${listed.last_check.outcome} (${listed.last_check.detail})` : '',
      ]
        .filter((l) => l !== '')
        .join('\n\n'),
    );
  });

  withApi(
    probes.command('propose').description('Make a rotation proposal now, whatever the interval (never while an incident is open)'),
  ).action(async (options: SentinelApiOptions) => {
    const made = await call<{ outcome: string; detail: string; proposal?: Proposal }>(options, 'POST', '/probes/proposals');
    emit(options.json, made, () => (made.proposal ? renderProposal(made.proposal) : `${made.outcome}: ${made.detail}`));
  });

  for (const [decision, description] of [
    ['accept', 'Apply a pending proposal to the probe file (operate role)'],
    ['reject', 'Reject a pending proposal; the probe set stays as it is (operate role)'],
  ] as const)
    withApi(probes.command(decision).description(description).argument('<id>', 'proposal id (rot-...)')).action(
      async (id: string, options: SentinelApiOptions) => {
        const { proposal } = await call<{ proposal: Proposal }>(options, 'POST', `/probes/proposals/${encodeURIComponent(id)}/${decision}`);
        emit(options.json, proposal, () => renderProposal(proposal));
      },
    );
}

interface BuildOptions {
  queryLog: string;
  rag: string;
  ragAdapter?: string;
  out?: string;
  force: boolean;
  size: number;
  runs: number;
  fragility: number;
  attribution: number;
  seed: number;
  json: boolean;
}

interface RotateOptions {
  file?: string;
  sinceHours: number;
  minRuns: number;
  queryLog?: string;
  rag?: string;
  ragAdapter?: string;
  apply: boolean;
  json: boolean;
}

/** The ONNX models load only for the commands that need them, so `immune probes list` stays quick. */
async function loadModels() {
  const [{ SentenceEmbedder }, { FactConsistencyScorer }] = await Promise.all([
    import('@rag-immune/embeddings'),
    import('@rag-immune/fcs'),
  ]);
  const embedder = await SentenceEmbedder.load();
  // One MiniLM session for both: the scorer reads claim support through the same embedder.
  const fcs = await FactConsistencyScorer.load({ embedder });
  return { embedder, fcs };
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}
