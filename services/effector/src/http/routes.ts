import type { Express, Request } from 'express';
import { z } from 'zod';
import { HttpRequestError } from '@rag-immune/worker-runtime';
import { RollbackRefused, type Effector } from '../effector.ts';
import { GrantError, type GrantStore } from '../grants/grant-store.ts';
import type { SnapshotStore } from '../snapshots/snapshot-store.ts';
import type { ActionStore } from '../state/action-store.ts';
import type { AuditLog } from '../state/audit-log.ts';
import { MODES, type ModeStore } from '../state/mode-store.ts';

export interface RouteDeps {
  effector: Effector;
  actions: ActionStore;
  snapshots: SnapshotStore;
  grants: GrantStore;
  modes: ModeStore;
  audit: AuditLog;
}

/** Who runs a manual command: the CLI sends the operator's name (never a token). */
function actorOf(req: Request): string {
  const header = req.headers['x-immune-actor'];
  const name = Array.isArray(header) ? header[0] : header;
  return name !== undefined && /^[\w.@-]{1,100}$/.test(name) ? name : 'unknown';
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
const ModeBody = z.object({ mode: z.enum(MODES as [string, ...string[]]) }).strict();

/**
 * The effector's API, all behind EFFECTOR_API_TOKEN: listing actions, snapshots and grants; rollback
 * with a dry-run plan; grant approve/deny; the run-time mode. Every mutating call is audit-logged.
 */
export function effectorRoutes(deps: RouteDeps): (app: Express) => void {
  return (app) => {
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
        res.json(await deps.effector.rollback(body.target, { dryRun: body.dry_run, actor: actorOf(req) }));
      } catch (error) {
        if (error instanceof RollbackRefused) throw new HttpRequestError(error.status, error.message);
        throw error;
      }
    });
    app.get('/grants', async (req, res) => {
      const status = z.enum(['pending', 'approved', 'denied', 'expired']).optional().parse(req.query.status);
      res.json({ grants: await deps.grants.list(status ? { status } : {}) });
    });
    for (const decision of ['approve', 'deny'] as const) {
      app.post(`/grants/:key/${decision}`, async (req, res) => {
        const body = GrantBody.parse(req.body ?? {});
        const key = String(req.params.key);
        try {
          const grant = await deps.effector.decideGrant(
            key,
            decision === 'approve' ? 'approved' : 'denied',
            actorOf(req),
            body.note ?? null,
            body.ttl_seconds === undefined ? undefined : body.ttl_seconds * 1000,
          );
          res.json({ grant });
        } catch (error) {
          if (error instanceof GrantError) {
            await deps.audit.record({
              actor: actorOf(req),
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
      await deps.modes.set(mode as (typeof MODES)[number], actorOf(req));
      await deps.audit.record({ actor: actorOf(req), command: 'effector.mode', target: mode, outcome: 'ok', detail: { previous } });
      res.json({ ...(await deps.modes.get()), previous });
    });
    app.get('/audit', async (_req, res) => {
      res.json({ entries: await deps.audit.list() });
    });
  };
}
