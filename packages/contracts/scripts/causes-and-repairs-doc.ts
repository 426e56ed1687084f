/**
 * The cause × repair table of the docs, rendered from the two catalogues that decide it: the
 * contract's cause catalogue (avro/common/RootCause.avsc `x-catalogue`: component and repair intents)
 * and the effector's repair policy (services/effector/policy/policy.v1.yaml: which tools, in which
 * order). Written by codegen, so the page cannot drift from either file; lint's `codegen --check`
 * fails when it is stale. A pure function, so its test needs no files.
 */
import { parse } from 'yaml';

export interface CauseCatalogueEntry {
  component: string;
  intents: string[];
}

export interface CausesAndRepairsInputs {
  /** Every RootCause symbol, in the enum's order ('unknown' included). */
  causes: readonly string[];
  catalogue: Record<string, CauseCatalogueEntry>;
  /** Every RepairIntent symbol. */
  intents: readonly string[];
  /** The effector's policy file, as text. */
  policyText: string;
  /** Where the policy file lives, relative to the repository root (named in the page). */
  policySource: string;
}

interface PolicyStep {
  tool: string;
  reason: string;
  params?: Record<string, string>;
}
interface PolicyBranch {
  id: string;
  when: {
    cause?: string[];
    component?: string[];
    scope?: string;
    min_confidence?: number;
    attempts_at_least?: number;
    attempts_below?: number;
  };
  actions: PolicyStep[];
}

/** The policy's shape as far as the page needs it; the effector's own loader (zod) is the full check. */
function readPolicy(text: string, source: string): { version: string; branches: PolicyBranch[] } {
  const doc = parse(text) as { policy_version?: unknown; branches?: unknown } | null;
  if (doc === null || typeof doc.policy_version !== 'string' || !Array.isArray(doc.branches))
    throw new Error(`${source}: expected policy_version and a list of branches`);
  for (const [i, branch] of (doc.branches as PolicyBranch[]).entries()) {
    if (typeof branch?.id !== 'string' || typeof branch.when !== 'object' || branch.when === null || !Array.isArray(branch.actions))
      throw new Error(`${source}: branch ${i} needs id, when and actions`);
  }
  return { version: doc.policy_version, branches: doc.branches as PolicyBranch[] };
}

const code = (value: string) => `\`${value}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|');

function condition(when: PolicyBranch['when']): string {
  const parts: string[] = [];
  if (when.component) parts.push(`component ${when.component.map(code).join(' or ')}`);
  if (when.scope !== undefined && when.scope !== 'any')
    parts.push(when.scope === 'knowledge' ? 'the report names knowledge ids' : 'the report names no knowledge ids');
  if (when.min_confidence !== undefined) parts.push(`confidence ≥ ${when.min_confidence}`);
  if (when.attempts_at_least !== undefined) parts.push(`≥ ${when.attempts_at_least} failed repairs so far`);
  if (when.attempts_below !== undefined) parts.push(`< ${when.attempts_below} failed repairs so far`);
  return parts.length > 0 ? parts.join(', ') : 'any report';
}

const toolChain = (branch: PolicyBranch) => branch.actions.map((a) => code(a.tool)).join(' → ');

export function causesAndRepairsDoc(inputs: CausesAndRepairsInputs): string {
  const { causes, catalogue, intents, policyText, policySource } = inputs;
  const policy = readPolicy(policyText, policySource);
  for (const branch of policy.branches)
    for (const cause of branch.when.cause ?? [])
      if (!causes.includes(cause)) throw new Error(`${policySource}: branch ${branch.id} names ${cause}, which is no RootCause symbol`);
  for (const [cause, entry] of Object.entries(catalogue))
    for (const intent of entry.intents) if (!intents.includes(intent)) throw new Error(`RootCause ${cause}: unknown intent ${intent}`);

  const rows: string[] = [];
  for (const cause of causes) {
    const entry = catalogue[cause];
    const component = entry ? code(entry.component) : '—';
    const catalogued = entry ? entry.intents.map(code).join(', ') : '— (abstention)';
    const branches = policy.branches.filter((b) => b.when.cause?.includes(cause));
    if (branches.length === 0) {
      rows.push(`| ${code(cause)} | ${component} | ${catalogued} | — | no branch names it: see below | — |`);
      continue;
    }
    for (const branch of branches)
      rows.push(
        `| ${code(cause)} | ${component} | ${catalogued} | ${code(branch.id)} | ${cell(condition(branch.when))} | ${toolChain(branch)} |`,
      );
  }
  const anyCause = policy.branches.filter((b) => b.when.cause === undefined);

  const steps = policy.branches.map((branch) => {
    const lines = branch.actions.map((action, i) => {
      const params = Object.entries(action.params ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
      return `${i + 1}. ${code(action.tool)}${params ? ` (${params})` : ''}: ${action.reason}`;
    });
    const who = branch.when.cause ? branch.when.cause.map(code).join(', ') : 'any cause';
    return `### ${code(branch.id)}\n\n${who}; ${condition(branch.when)}.\n\n${lines.join('\n')}\n`;
  });

  return `<!-- GENERATED from avro/common/RootCause.avsc and ${policySource} by packages/contracts/scripts/codegen.ts. Do not edit: run \`npm run codegen\`. -->

# Causes and repairs

What each root cause the identifier may name leads to. **Component** and **intents** come from the
contract's catalogue (\`avro/common/RootCause.avsc\`, \`x-catalogue\`: the intents that heal the cause,
preferred first; a RootCauseReport recommends them). **Policy branch** and **tools** come from the
effector's repair policy (\`${policySource}\`, version ${policy.version}): the first branch whose
condition matches the report gives the tools to try, in order; each repair is verified by re-running
the affected probes and undone if they do not recover, and a tool already tried for the incident is
skipped. Memory's recommendation may reorder the tools within the branch
([services/effector/README.md](../services/effector/README.md)).

| cause | component | intents (catalogue) | policy branch | when | tools, in order |
| --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

A report that no branch above matches (including \`unknown\`, an abstention) falls to
${anyCause.length > 0 ? anyCause.map((b) => `${code(b.id)} (${condition(b.when)}: ${toolChain(b)})`).join(', then ') : 'no branch: the effector escalates'}.

## Each step and why

${steps.join('\n')}`;
}
