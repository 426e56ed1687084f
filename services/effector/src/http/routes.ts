import { AsyncLocalStorage } from 'node:async_hooks';
import type { Express, Request, Response } from 'express';
import { z } from 'zod';
import { HttpRequestError, principalOf } from '@rag-immune/worker-runtime';
import { ReopenRefused, RollbackRefused, type Effector } from '../effector.ts';
import { GrantError, type GrantStore } from '../grants/grant-store.ts';
import type { SnapshotStore } from '../snapshots/snapshot-store.ts';
import type { ActionStore } from '../state/action-store.ts';
import type { AuditEntry, AuditLog } from '../state/audit-log.ts';
import { MODES, type ModeStore } from '../state/mode-store.ts';
import { requireRole, type ApiRole, type ApiRoles } from './api-roles.ts';

export interface RouteDeps {
  effector: Effector;
  actions: ActionStore;
  snapshots: SnapshotStore;
  grants: GrantStore;
  modes: ModeStore;
  audit: AuditLog;
  /** EFFECTOR_API_ROLES; null or absent: every authenticated caller may do everything. */
  roles?: ApiRoles;
}

/** Who runs a manual command, and whether the API authenticated that name or only heard it claimed. */
export interface Actor {
  name: string;
  verified: boolean;
}

/**
 * The actor of a request: the name of the caller's own token (EFFECTOR_API_TOKENS), authenticated.
 * With the single shared token nothing identifies the caller, so the name the CLI claims in
 * `x-immune-actor` is kept but marked self-asserted (verified: false).
 */
export function actorOf(req: Request, res: Response): Actor {
  const principal = principalOf(res);
  if (principal?.verified === true) return { name: principal.name, verified: true };
  const header = req.headers['x-immune-actor'];
  const name = Array.isArray(header) ? header[0] : header;
  return { name: name !== undefined && /^[\w.@-]{1,100}$/.test(name) ? name : 'unknown', verified: false };
}

// The actor of the request being served, for audit entries the effector writes deep in its operator code.
const requestActor = new AsyncLocalStorage<Actor>();

/**
 * Makes every entry this audit log records while serving an API request carry `actor_verified`
 * (whether its actor was authenticated or only claimed). Applied once where the log is built.
 */
export function withActorProvenance(audit: AuditLog): AuditLog {
  const record = audit.record.bind(audit);
  audit.record = (entry) => {
    const actor = requestActor.getStore();
    if (actor === undefined || entry.actor !== actor.name) return record(entry);
    const attributed: AuditEntry & { actor_verified: boolean } = { ...entry, actor_verified: actor.verified };
    return record(attributed);
  };
  return audit;
}

const RollbackBody = z.object({ target: z.string().min(1).max(300), dry_run: z.boolean().default(false) }).strict();
const GrantBody = z
  .object({
    note: z.string().max(500).optional(),
    ttl_seconds: z
      .number()
      .int()
      .min(10)
      .max(7 * 86_400)
      .optional(),
  })
  .strict();
const ReopenBody = z.object({ note: z.string().max(500).optional() }).strict();
const ModeBody = z.object({ mode: z.enum(MODES as [string, ...string[]]) }).strict();

/**
 * A grant with the exact arguments of the action it covers: an approver sees what will run, not
 * only the tool's name. null when the action record is gone.
 */
async function withArguments<G extends { action_id: string }>(
  deps: RouteDeps,
  grant: G,
): Promise<G & { arguments: Record<string, string> | null }> {
  if ('arguments' in grant) return grant as G & { arguments: Record<string, string> | null };
  const action = await deps.actions.getById(grant.action_id);
  return { ...grant, arguments: action?.doc.arguments ?? null };
}

/**
 * The effector's API, all behind EFFECTOR_API_TOKEN(S): listing actions, snapshots and grants; rollback
 * with a dry-run plan; grant approve/deny; the run-time mode. Every mutating call is audit-logged.
 */
export function effectorRoutes(deps: RouteDeps): (app: Express) => void {
  return (app) => {
    // Runs each request's handler with its actor in scope (after auth and body parsing), so audit
    // entries written by the effector's operator code carry the actor's provenance.
    app.use((req, res, next) => requestActor.run(actorOf(req, res), next));
    // A command refused for want of a role is audit-logged like any other refusal.
    const may = (role: ApiRole) =>
      requireRole(deps.roles ?? null, role, (caller, req) =>
        deps.audit.record({
          actor: caller,
          command: `${req.method} ${req.path}`,
          target: req.path,
          outcome: 'refused',
          detail: { missing_role: role },
        }),
      );
    app.get(['/actions', '/snapshots', '/grants', '/mode', '/audit'], may('read'));
    app.post(['/rollback', '/incidents/:id/reopen'], may('operate'));
    app.put('/mode', may('operate'));
    app.post(['/grants/:key/approve', '/grants/:key/deny'], may('grant'));
    app.get('/actions', async (req, res) => {
      const incident = typeof req.query.incident === 'string' ? req.query.incident : undefined;
      res.json({ actions: await deps.actions.list(incident ? { incident } : {}) });
    });
    app.get('/snapshots', async (req, res) => {
      const incident = typeof req.query.incident === 'string' ? req.query.incident : undefined;
      res.json({ snapshots: await deps.snapshots.list(incident ? { incident } : {}) });
    });
    app.post('/rollback', async (req, res) => {
      const body = RollbackBody.parse(req.body ?? {});
      try {
        res.json(await deps.effector.rollback(body.target, { dryRun: body.dry_run, actor: actorOf(req, res).name }));
      } catch (error) {
        if (error instanceof RollbackRefused) throw new HttpRequestError(error.status, error.message);
        throw error;
      }
    });
    // A person hands an incident held for a human (after a manual rollback or a held repair) back to the effector.
    app.post('/incidents/:id/reopen', async (req, res) => {
      const body = ReopenBody.parse(req.body ?? {});
      try {
        res.json(await deps.effector.reopen(String(req.params.id), { actor: actorOf(req, res).name, note: body.note ?? null }));
      } catch (error) {
        if (error instanceof ReopenRefused) throw new HttpRequestError(error.status, error.message);
        throw error;
      }
    });
    app.get('/grants', async (req, res) => {
      const status = z.enum(['pending', 'approved', 'denied', 'expired']).optional().parse(req.query.status);
      const grants = await deps.grants.list(status ? { status } : {});
      res.json({ grants: await Promise.all(grants.map((grant) => withArguments(deps, grant))) });
    });
    for (const decision of ['approve', 'deny'] as const) {
      app.post(`/grants/:key/${decision}`, async (req, res) => {
        const body = GrantBody.parse(req.body ?? {});
        const key = String(req.params.key);
        try {
          const grant = await deps.effector.decideGrant(
            key,
            decision === 'approve' ? 'approved' : 'denied',
            actorOf(req, res).name,
            body.note ?? null,
            body.ttl_seconds === undefined ? undefined : body.ttl_seconds * 1000,
          );
          res.json({ grant: await withArguments(deps, grant) });
        } catch (error) {
          if (error instanceof GrantError) {
            await deps.audit.record({
              actor: actorOf(req, res).name,
              command: `grants.${decision}`,
              target: key,
              outcome: 'refused',
              detail: { error: error.message },
            });
            throw new HttpRequestError(error.status, error.message);
          }
          throw error;
        }
      });
    }
    app.get('/mode', async (_req, res) => {
      res.json(await deps.modes.get());
    });
    app.put('/mode', async (req, res) => {
      const { mode } = ModeBody.parse(req.body ?? {});
      const previous = (await deps.modes.get()).mode;
      await deps.modes.set(mode as (typeof MODES)[number], actorOf(req, res).name);
      await deps.audit.record({
        actor: actorOf(req, res).name,
        command: 'effector.mode',
        target: mode,
        outcome: 'ok',
        detail: { previous },
      });
      res.json({ ...(await deps.modes.get()), previous });
    });
    app.get('/audit', async (_req, res) => {
      res.json({ entries: await deps.audit.list() });
    });
  };
}
