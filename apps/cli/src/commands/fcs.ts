import { Command, InvalidArgumentError, Option } from 'commander';
import { once } from 'node:events';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import cliProgress from 'cli-progress';
import type { ExecutionProviderChoice, FcsInput, FcsLabelledInput, FcsResult, ScorerVersion } from '@rag-immune/fcs';
import { DEFAULT_MODEL_PATH, FactConsistencyScorer, fcsLabelledInputSchema, isConsistentLabel } from '@rag-immune/fcs';
import { CliError, ExitCode } from '../exit-codes.ts';

/** sysexits EX_NOINPUT: the input file (or the model) cannot be opened. */

/** What the command needs from a scorer; tests inject a fake so they need no model. */
export interface FcsScorerLike {
  scoreMany(inputs: readonly FcsInput[]): Promise<FcsResult[]>;
  readonly executionProvider: string;
  /** The scorer's own decision threshold (v2: fitted on dev data), used when --threshold is not given. */
  readonly threshold?: number;
}

export interface FcsScorerFactoryOptions {
  modelPath: string;
  /** Undefined: the scorer's default (v1 0.5; v2 the threshold fitted with its combination). */
  threshold: number | undefined;
  executionProvider: ExecutionProviderChoice;
  scorerVersion: ScorerVersion;
}

export interface FcsCommandDeps {
  createScorer?: (options: FcsScorerFactoryOptions) => Promise<FcsScorerLike>;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream & { isTTY?: boolean };
}

interface ScoreOptions {
  threshold: number | undefined;
  scorer: ScorerVersion;
  model: string;
  json: boolean;
  skipInvalid: boolean;
  batchSize: number;
  executionProvider: ExecutionProviderChoice;
  /** false with --no-question: the data knowingly has no questions; no per-line warning. */
  question: boolean;
}

// `id` is echoed back; `label` (if present) turns on the evaluation summary.
type Line = FcsLabelledInput & { line: number };

function parseThreshold(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('must be a number between 0 and 1');
  return n;
}

function parseBatchSize(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new InvalidArgumentError('must be an integer between 1 and 1024');
  return n;
}

async function defaultScorer(options: FcsScorerFactoryOptions): Promise<FcsScorerLike> {
  // No cache: a user evaluating their own data wants every line judged, not a replay.
  return FactConsistencyScorer.load({
    modelPath: options.modelPath,
    ...(options.threshold === undefined ? {} : { threshold: options.threshold }),
    executionProvider: options.executionProvider,
    scorerVersion: options.scorerVersion,
    cache: false,
    // Quiet: stdout is the JSONL, stderr the progress bar; the summary names the execution provider.
    logger: false,
  });
}

/** `immune fcs`: the fact consistency scorer on the command line. */
export function fcsCommand(deps: FcsCommandDeps = {}): Command {
  const fcs = new Command('fcs').description('Fact consistency score (FCS): does an answer agree with its evidence on the key facts?');
  fcs
    .command('score')
    .description(
      'Score JSONL triples {question, evidence: string | string[], answer} from a file or stdin; writes one JSON line each: ' +
        '{line, id?, status, score, label, evidence_snippets, truncated, latency_ms}. Lines with a "label" (1/0, true/false, ' +
        '"consistent"/"inconsistent") also get accuracy and F1 in the summary on stderr.',
    )
    .argument('[file]', 'JSONL input; stdin when omitted or "-"')
    .option('--threshold <p>', 'FCS at or above this is "consistent" (default: the scorer\'s; v1 0.5, v2 fitted)', parseThreshold)
    .addOption(
      // v2 is the default (as for the sentinel): measured better on human-labelled real data (bench/fcs/RESULTS.md).
      new Option('--scorer <version>', 'v2: answer sentences x evidence chunks, combination fitted on real data; v1: the earlier scorer')
        .choices(['v1', 'v2'])
        .default('v2' satisfies ScorerVersion),
    )
    .option('--model <path>', 'ONNX model (default: the committed INT8 model)', DEFAULT_MODEL_PATH)
    .option('--json', 'write the full result per line (adds key_fact_findings, model_probability, execution_provider)', false)
    .option('--skip-invalid', 'report invalid lines on stderr and carry on instead of stopping (exit 65)', false)
    .option('--batch-size <n>', 'triples scored per model pass', parseBatchSize, 16)
    .option(
      '--no-question',
      'the triples knowingly have no question: score them without one and do not warn per line (a missing question changes the score a lot)',
    )
    .addOption(new Option('--execution-provider <ep>', 'onnxruntime execution provider').choices(['auto', 'cuda', 'cpu']).default('auto'))
    .action(async (file: string | undefined, options: ScoreOptions) => {
      await scoreCommand(file, options, deps);
    });
  return fcs;
}

async function scoreCommand(file: string | undefined, options: ScoreOptions, deps: FcsCommandDeps): Promise<void> {
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const fromStdin = file === undefined || file === '-';
  if (!fromStdin && (!existsSync(file) || !statSync(file).isFile()))
    throw new CliError(`cannot open input file: ${file}`, ExitCode.noInput);
  if (!existsSync(options.model)) {
    throw new CliError(
      `FCS model not found: ${options.model} (export it with models/fcs/recipe/export.py, or pass --model)`,
      ExitCode.noInput,
    );
  }
  const scorer = await (deps.createScorer ?? defaultScorer)({
    modelPath: options.model,
    threshold: options.threshold,
    executionProvider: options.executionProvider,
    scorerVersion: options.scorer,
  });
  const threshold = options.threshold ?? scorer.threshold ?? 0.5;

  const bar = stderr.isTTY === true ? progressBar(stderr, fromStdin ? undefined : countLines(file)) : undefined;
  const summary = new Summary();
  const write = async (text: string): Promise<void> => {
    if (!stdout.write(text)) await once(stdout, 'drain');
  };
  let batch: Line[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const results = await scorer.scoreMany(batch);
    for (const [k, result] of results.entries()) {
      const line = batch[k]!;
      summary.add(result, line.label === undefined ? undefined : isConsistentLabel(line.label));
      await write(`${JSON.stringify(render(line, result, options.json))}\n`);
    }
    bar?.increment(batch.length);
    batch = [];
  };

  const input = fromStdin ? (deps.stdin ?? process.stdin) : createReadStream(file);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const text of lines) {
      lineNumber += 1;
      if (text.trim() === '') continue;
      const parsed = parseLine(text, lineNumber);
      if (typeof parsed === 'string') {
        if (!options.skipInvalid) throw new CliError(`${parsed} (use --skip-invalid to skip bad lines)`, ExitCode.dataError);
        summary.skipped += 1;
        bar?.increment(1);
        stderr.write(`immune: skipped ${parsed}\n`);
        continue;
      }
      if (options.question && (parsed.question ?? '').trim() === '') {
        summary.withoutQuestion += 1;
        stderr.write(
          `immune: warning: line ${lineNumber}: no question; scored without one, which can change the score a lot (pass --no-question if your data has none)\n`,
        );
      }
      batch.push(parsed);
      if (batch.length >= options.batchSize) await flush();
    }
    await flush();
  } finally {
    bar?.stop();
    lines.close();
  }
  stderr.write(`${summary.render(threshold, scorer.executionProvider)}\n`);
}

function parseLine(text: string, line: number): Line | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `line ${line}: invalid JSON: ${(error as Error).message}`;
  }
  const parsed = fcsLabelledInputSchema.safeParse(value);
  if (!parsed.success) {
    const why = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'line'}: ${describeIssue(issue, value)}`).join('; ');
    return `line ${line}: not an FCS triple {question, evidence, answer}: ${why}`;
  }
  return { ...parsed.data, line };
}

/** zod says "Required" or, for a union such as evidence, "Invalid input" for a missing key: say "required". */
function describeIssue(issue: { path: (string | number)[]; message: string }, value: unknown): string {
  const [key] = issue.path;
  const missing =
    issue.path.length === 1 && typeof value === 'object' && value !== null && (value as Record<string, unknown>)[key!] === undefined;
  return missing ? 'required' : issue.message;
}

function render(line: Line, result: FcsResult, full: boolean): Record<string, unknown> {
  const round = (x: number | null): number | null => (x === null ? null : Math.round(x * 1e4) / 1e4);
  const base = {
    line: line.line,
    ...(line.id === undefined ? {} : { id: line.id }),
    status: result.status,
    score: round(result.score),
    label: result.label,
    evidence_snippets: result.evidence_snippets.map((s) => ({ ...s, probability: round(s.probability) })),
    truncated: result.truncated,
    ...(result.question_missing === undefined ? {} : { question_missing: result.question_missing }),
    latency_ms: Math.round(result.latency_ms * 100) / 100,
  };
  if (!full) return base;
  return {
    ...base,
    model_probability: round(result.model_probability),
    key_fact_findings: result.key_fact_findings,
    threshold: result.threshold,
    execution_provider: result.execution_provider,
    windows: result.windows,
    ...(result.scorer_version === undefined ? {} : { scorer_version: result.scorer_version }),
    ...(result.claims === undefined ? {} : { claims: result.claims.map((c) => ({ ...c, probability: round(c.probability) })) }),
    ...(result.features === undefined ? {} : { features: result.features }),
  };
}

function countLines(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').filter((l) => l.trim() !== '').length;
}

function progressBar(stream: NodeJS.WritableStream, total: number | undefined): cliProgress.SingleBar {
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as NodeJS.WritableStream & { isTTY: boolean },
      format:
        total === undefined
          ? 'fcs score | {value} lines | {duration_formatted}'
          : 'fcs score |{bar}| {value}/{total} lines | eta {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total ?? 0, 0);
  return bar;
}

/** Counts, latency and, for labelled input, accuracy/F1 (both classes; "inconsistent" is what the sentinel alerts on). */
class Summary {
  skipped = 0;
  withoutQuestion = 0;
  private scored = 0;
  private noEvidence = 0;
  private consistent = 0;
  private latencies: number[] = [];
  // Confusion counts with "inconsistent" as the positive class.
  private tp = 0;
  private fp = 0;
  private fn = 0;
  private tn = 0;

  add(result: FcsResult, labelConsistent: boolean | undefined): void {
    this.latencies.push(result.latency_ms);
    if (result.status === 'no_evidence') {
      this.noEvidence += 1;
      return;
    }
    this.scored += 1;
    const predictedConsistent = result.label === 'consistent';
    if (predictedConsistent) this.consistent += 1;
    if (labelConsistent === undefined) return;
    if (!predictedConsistent && !labelConsistent) this.tp += 1;
    else if (!predictedConsistent && labelConsistent) this.fp += 1;
    else if (predictedConsistent && !labelConsistent) this.fn += 1;
    else this.tn += 1;
  }

  render(threshold: number, provider: string): string {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
    const parts = [
      `fcs score: ${this.scored} scored (${this.consistent} consistent, ${this.scored - this.consistent} inconsistent at threshold ${threshold})`,
      `${this.noEvidence} no_evidence, ${this.skipped} skipped${this.withoutQuestion > 0 ? `, ${this.withoutQuestion} without a question` : ''}; p50 ${p50.toFixed(1)} ms/triple on ${provider}`,
    ];
    const labelled = this.tp + this.fp + this.fn + this.tn;
    if (labelled > 0) {
      const f1 = (tp: number, fp: number, fn: number): number => (tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn));
      parts.push(
        `labelled ${labelled}: accuracy ${((this.tp + this.tn) / labelled).toFixed(4)}, ` +
          `F1(inconsistent) ${f1(this.tp, this.fp, this.fn).toFixed(4)}, recall(inconsistent) ${(this.tp / Math.max(1, this.tp + this.fn)).toFixed(4)}, ` +
          `F1(consistent) ${f1(this.tn, this.fn, this.fp).toFixed(4)}`,
      );
    }
    return parts.join('; ');
  }
}
