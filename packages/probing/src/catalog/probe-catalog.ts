import { readFile, writeFile, rename } from 'node:fs/promises';
import { GoldenProbeSchema, isActive, type GoldenProbe } from '../golden-probe.ts';

/** One problem in a probe file, with the line it is on, so an operator can fix it in place. */
export interface ProbeFileIssue {
  line: number;
  message: string;
}

export class InvalidProbeFileError extends Error {
  constructor(
    readonly path: string,
    readonly issues: ProbeFileIssue[],
  ) {
    super(`${path}: ${issues.map((i) => `line ${i.line}: ${i.message}`).join('; ')}`);
    this.name = 'InvalidProbeFileError';
  }
}

/** Parses a probe file (JSON Lines, one probe per line, '#' comments allowed) and reports every bad line. */
export function parseProbeFile(text: string, path = '<probes>'): GoldenProbe[] {
  const probes: GoldenProbe[] = [];
  const issues: ProbeFileIssue[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const content = raw.trim();
    if (content === '' || content.startsWith('#')) return;
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch (error) {
      issues.push({ line, message: `not valid JSON (${(error as Error).message})` });
      return;
    }
    const parsed = GoldenProbeSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) issues.push({ line, message: `${issue.path.join('.') || '(probe)'}: ${issue.message}` });
      return;
    }
    const earlier = seen.get(parsed.data.id);
    if (earlier !== undefined) {
      issues.push({ line, message: `duplicate probe id "${parsed.data.id}" (first on line ${earlier})` });
      return;
    }
    seen.set(parsed.data.id, line);
    probes.push(parsed.data);
  });
  if (issues.length > 0) throw new InvalidProbeFileError(path, issues);
  return probes;
}

export function formatProbeFile(probes: readonly GoldenProbe[]): string {
  return probes.map((probe) => JSON.stringify(probe)).join('\n') + '\n';
}

/** The versioned probe file a sentinel runs from. */
export class ProbeCatalog {
  private constructor(
    readonly path: string,
    readonly probes: readonly GoldenProbe[],
  ) {}

  static async load(path: string): Promise<ProbeCatalog> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new InvalidProbeFileError(path, [{ line: 0, message: `cannot read the probe file: ${(error as Error).message}` }]);
    }
    return new ProbeCatalog(path, parseProbeFile(text, path));
  }

  /** A catalog with no probe yet, to be saved at `path` (e.g. the first `immune probes add`). */
  static empty(path: string): ProbeCatalog {
    return new ProbeCatalog(path, []);
  }

  active(at: Date = new Date()): GoldenProbe[] {
    return this.probes.filter((probe) => isActive(probe, at));
  }

  /** Adds a probe; an existing id is refused so versions are changed deliberately, not by accident. */
  withProbe(probe: GoldenProbe): ProbeCatalog {
    const checked = GoldenProbeSchema.parse(probe);
    if (this.probes.some((p) => p.id === checked.id)) throw new Error(`probe "${checked.id}" already exists in ${this.path}`);
    return new ProbeCatalog(this.path, [...this.probes, checked]);
  }

  withProbes(probes: readonly GoldenProbe[]): ProbeCatalog {
    return new ProbeCatalog(this.path, probes);
  }

  /** Writes atomically (temp file + rename) so a running sentinel never reads half a file. */
  async save(path: string = this.path): Promise<void> {
    const temp = `${path}.tmp-${process.pid}`;
    await writeFile(temp, formatProbeFile(this.probes));
    await rename(temp, path);
  }
}
