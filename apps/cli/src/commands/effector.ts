import { createInterface } from 'node:readline/promises';
import { Command, InvalidArgumentError } from 'commander';
import { emit } from '../output.ts';
import { CliError, ExitCode } from '../exit-codes.ts';
import { callWorkerApi, withWorkerApiOptions, type WorkerApiOptions } from '../worker-api.ts';

/**
 * The on-call engineer's commands against the effector's HTTP API: rollback, snapshots, actions,
 * grants and the run-time mode. Every call is authenticated with the effector's API token (from
 * IMMUNE_API_TOKEN or --token; never printed) and sends the operator's name for the audit log.
 */

interface ApiOptions extends WorkerApiOptions {
  actor: string;
}

function withApiOptions(command: Command): Command {
  return withWorkerApiOptions(command, 'effector', 'IMMUNE_EFFECTOR_URL', 'http://127.0.0.1:9466').option(
    '--actor <name>',
    'who runs the command, for the audit log when the effector has one shared token (recorded as claimed); a per-caller token names you instead (default: env USER)',
    process.env.USER ?? 'unknown',
  );
}

/** Calls the effector; unreachable → 69, bad token → 77, refused (4xx) → 65, server error → 1. */
// The fields of the API's answers the CLI prints (the effector validates them; --json prints them whole).
interface SnapshotRow {
  snapshot_id: string;
  collection: string;
  points_count: number;
  status: string;
  incident_id: string | null;
  created_at: string;
}
interface ActionRow {
  action_id: string;
  incident_id: string;
  report_revision: number;
  tool: string;
  status: string;
  snapshot_id: string | null;
  failure: { message: string } | null;
  arguments: Record<string, string>;
}
interface GrantRow {
  key: string;
  tool: string;
  status: string;
  effective_status: string;
  expires_at: string;
  decided_by: string | null;
  /** The covered action's exact arguments (null when its record is gone; absent from older effectors). */
  arguments?: Record<string, string> | null;
}

/** `k=v` pairs, so an approver sees exactly what will run. */
export function renderArguments(args: Record<string, string> | null | undefined): string {
  if (args === null || args === undefined) return '-';
  const pairs = Object.entries(args).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return pairs.length === 0 ? '(none)' : pairs.join(' ');
}
interface RollbackPlan {
  target: string;
  kind: string;
  steps: RollbackStep[];
  done: boolean;
}

async function call<T = Record<string, unknown>>(options: ApiOptions, method: string, path: string, body?: unknown): Promise<T> {
  const token = options.token ?? process.env.IMMUNE_API_TOKEN;
  if (!token) throw new CliError('no API token: set IMMUNE_API_TOKEN or pass --token', ExitCode.usage);
  return callWorkerApi<T>({
    worker: 'effector',
    url: options.url,
    method,
    path,
    token,
    body,
    headers: { 'x-immune-actor': options.actor },
    timeoutMs: 600_000,
  });
}

interface RollbackStep {
  action_id: string | null;
  tool: string | null;
  incident_id: string | null;
  changes: string[];
}

function renderPlan(plan: RollbackPlan): string {
  const lines = [`${plan.done ? 'Rolled back' : 'Rollback of'} ${plan.kind} ${plan.target}:`];
  for (const step of plan.steps) {
    lines.push(
      `  ${step.tool ?? 'snapshot'}${step.action_id ? ` (action ${step.action_id})` : ''}${step.incident_id ? ` of incident ${step.incident_id}` : ''}`,
    );
    for (const change of step.changes) lines.push(`    - ${change}`);
  }
  return lines.join('\n');
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export function rollbackCommand(): Command {
  return withApiOptions(
    new Command('rollback')
      .description(
        'Undo a repair: by action id, by incident id (all its succeeded repairs) or restore a snapshot id; shows what will change first',
      )
      .argument('<target>', 'an action id, an incident id or a snapshot id')
      .option('--dry-run', 'only show what would change', false)
      .option('--yes', 'do not ask for confirmation (required when stdin is not a terminal)', false),
  ).action(async (target: string, options: ApiOptions & { dryRun: boolean; yes: boolean }) => {
    const plan = await call<RollbackPlan>(options, 'POST', '/rollback', { target, dry_run: true });
    if (options.dryRun) {
      emit(options.json, plan, () => `${renderPlan(plan)}\n(dry run: nothing changed)`);
      return;
    }
    if (!options.json) process.stderr.write(`${renderPlan(plan)}\n`);
    if (!options.yes) {
      if (!process.stdin.isTTY) throw new CliError('refusing to roll back without --yes when stdin is not a terminal', ExitCode.usage);
      if (!(await confirm('Proceed? [y/N] '))) throw new CliError('rollback cancelled', ExitCode.failure);
    }
    const done = await call<RollbackPlan>(options, 'POST', '/rollback', { target, dry_run: false });
    emit(options.json, done, () => renderPlan(done));
  });
}

export function reopenCommand(): Command {
  return withApiOptions(
    new Command('reopen')
      .description('Hand an escalated incident back to the effector (after a manual rollback it stays held for a human until re-opened)')
      .argument('<incident>', 'the incident id')
      .option('--note <text>', 'why it is handed back (audit-logged)'),
  ).action(async (incident: string, options: ApiOptions & { note?: string }) => {
    const done = await call<{ incident_id: string; held_for_human: string | null }>(
      options,
      'POST',
      `/incidents/${encodeURIComponent(incident)}/reopen`,
      options.note === undefined ? {} : { note: options.note },
    );
    emit(
      options.json,
      done,
      () =>
        `Re-opened ${done.incident_id}${done.held_for_human ? ` (it was held: ${done.held_for_human})` : ''}: the effector may repair it again`,
    );
  });
}

const table = (rows: string[][]): string => {
  if (rows.length === 0) return '(none)';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
};

export function snapshotsCommand(): Command {
  const command = new Command('snapshots').description('Qdrant snapshots the effector took before repairs');
  command.addCommand(
    withApiOptions(new Command('list').description('List recorded snapshots').option('--incident <id>', 'only this incident')).action(
      async (options: ApiOptions & { incident?: string }) => {
        const { snapshots } = await call<{ snapshots: SnapshotRow[] }>(
          options,
          'GET',
          `/snapshots${options.incident ? `?incident=${encodeURIComponent(options.incident)}` : ''}`,
        );
        emit(options.json, snapshots, () =>
          table([
            ['SNAPSHOT', 'COLLECTION', 'POINTS', 'STATUS', 'INCIDENT', 'CREATED'],
            ...snapshots.map((s) => [s.snapshot_id, s.collection, String(s.points_count), s.status, s.incident_id ?? '-', s.created_at]),
          ]),
        );
      },
    ),
  );
  return command;
}

export function actionsCommand(): Command {
  const command = new Command('actions').description('Repair actions and their state');
  command.addCommand(
    withApiOptions(new Command('list').description('List repair actions').option('--incident <id>', 'only this incident')).action(
      async (options: ApiOptions & { incident?: string }) => {
        const { actions } = await call<{ actions: ActionRow[] }>(
          options,
          'GET',
          `/actions${options.incident ? `?incident=${encodeURIComponent(options.incident)}` : ''}`,
        );
        emit(options.json, actions, () =>
          table([
            ['ACTION', 'INCIDENT', 'REV', 'TOOL', 'STATUS', 'SNAPSHOT', 'WHY'],
            ...actions.map((a) => [
              a.action_id,
              a.incident_id,
              String(a.report_revision),
              a.tool,
              a.status,
              a.snapshot_id ?? '-',
              a.failure?.message ?? a.arguments?.reason ?? '',
            ]),
          ]),
        );
      },
    ),
  );
  return command;
}

export function grantsCommand(): Command {
  const command = new Command('grants').description('Human grants for repairs that need one (approve mode, irreversible actions)');
  command.addCommand(
    withApiOptions(
      new Command('list').description('List grant requests').option('--status <status>', 'pending | approved | denied | expired'),
    ).action(async (options: ApiOptions & { status?: string }) => {
      const { grants } = await call<{ grants: GrantRow[] }>(
        options,
        'GET',
        `/grants${options.status ? `?status=${encodeURIComponent(options.status)}` : ''}`,
      );
      emit(options.json, grants, () =>
        table([
          ['KEY', 'TOOL', 'STATUS', 'EXPIRES', 'DECIDED BY', 'ARGUMENTS'],
          ...grants.map((g) => [g.key, g.tool, g.effective_status, g.expires_at, g.decided_by ?? '-', renderArguments(g.arguments)]),
        ]),
      );
    }),
  );
  for (const decision of ['approve', 'deny'] as const) {
    command.addCommand(
      withApiOptions(
        new Command(decision)
          .description(`${decision === 'approve' ? 'Approve' : 'Deny'} a pending grant request`)
          .argument('<key>', 'the grant key (incident:rN:tool), from `immune grants list`')
          .option('--note <text>', 'why, for the audit log')
          .option('--ttl <seconds>', 'how long an approval holds', (v) => {
            const n = Number(v);
            if (!Number.isInteger(n) || n < 10) throw new InvalidArgumentError('must be an integer >= 10');
            return n;
          }),
      ).action(async (key: string, options: ApiOptions & { note?: string; ttl?: number }) => {
        const { grant } = await call<{ grant: GrantRow & { decided_by: string } }>(
          options,
          'POST',
          `/grants/${encodeURIComponent(key)}/${decision}`,
          {
            ...(options.note ? { note: options.note } : {}),
            ...(options.ttl ? { ttl_seconds: options.ttl } : {}),
          },
        );
        emit(
          options.json,
          grant,
          () =>
            `${grant.key}: ${grant.status} by ${grant.decided_by} (expires ${grant.expires_at})\n  ${grant.tool} ${renderArguments(grant.arguments)}`,
        );
      }),
    );
  }
  return command;
}

export function effectorCommand(): Command {
  const command = new Command('effector').description('The effector worker');
  command.addCommand(
    withApiOptions(
      new Command('mode')
        .description('Show or set the run-time mode: observe (plan only), approve (wait for grants), auto')
        .argument('[mode]', 'observe | approve | auto', (v) => {
          if (!['observe', 'approve', 'auto'].includes(v)) throw new InvalidArgumentError('must be observe, approve or auto');
          return v;
        }),
    ).action(async (mode: string | undefined, options: ApiOptions) => {
      type ModeAnswer = { mode: string; previous?: string; updated_by: string | null; updated_at: string | null };
      const result =
        mode === undefined ? await call<ModeAnswer>(options, 'GET', '/mode') : await call<ModeAnswer>(options, 'PUT', '/mode', { mode });
      emit(
        options.json,
        result,
        () =>
          `mode: ${result.mode}${result.previous ? ` (was ${result.previous})` : ''}${result.updated_by ? `, set by ${result.updated_by} at ${result.updated_at}` : ''}`,
      );
    }),
  );
  return command;
}
