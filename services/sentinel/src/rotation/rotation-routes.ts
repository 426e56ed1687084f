import type { Express, NextFunction, Request, Response } from 'express';
import { HttpRequestError, principalOf } from '@rag-immune/worker-runtime';
import { requireRole, type SentinelRoles } from './api-roles.ts';
import { RotationRefusal, type ProbeRotation } from './probe-rotation.ts';

const ID = /^rot-[0-9a-z]+-[0-9a-f]{6}$/;

/** Express 5 forwards a rejected promise; a refusal becomes its 404/409 with the message. */
const handle =
  (work: (req: Request, res: Response) => Promise<void>) =>
  async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      await work(req, res);
    } catch (error) {
      next(error instanceof RotationRefusal ? new HttpRequestError(error.status, error.message) : error);
    }
  };

function proposalId(req: Request): string {
  const id = String(req.params.id);
  if (!ID.test(id)) throw new RotationRefusal(404, `no proposal ${id}: expected rot-<time>-<6 hex digits>`);
  return id;
}

/**
 * GET /probes/proposals (read), GET /probes/proposals/:id (read), POST /probes/proposals (operate:
 * make one now, never during an incident), POST /probes/proposals/:id/accept|reject (operate). The
 * caller's name (its named token) is recorded as who decided.
 */
export function rotationRoutes(rotation: ProbeRotation, roles: SentinelRoles): (app: Express) => void {
  const actor = (res: Response) => principalOf(res)?.name ?? 'anonymous';
  return (app) => {
    app.get(
      '/probes/proposals',
      requireRole(roles, 'read'),
      handle(async (_req, res) => {
        res.json(await rotation.proposals());
      }),
    );
    app.get(
      '/probes/proposals/:id',
      requireRole(roles, 'read'),
      handle(async (req, res) => {
        const id = proposalId(req);
        const found = (await rotation.proposals()).proposals.find((p) => p.proposal_id === id);
        if (found === undefined) throw new RotationRefusal(404, `no proposal ${id}`);
        res.json({ proposal: found });
      }),
    );
    app.post(
      '/probes/proposals',
      requireRole(roles, 'operate'),
      handle(async (_req, res) => {
        const check = await rotation.tick(true);
        res.status(check.outcome === 'proposed' ? 201 : check.outcome === 'failed' ? 503 : 409).json(check);
      }),
    );
    for (const decision of ['accept', 'reject'] as const)
      app.post(
        `/probes/proposals/:id/${decision}`,
        requireRole(roles, 'operate'),
        handle(async (req, res) => {
          const id = proposalId(req);
          res.json({ proposal: await rotation[decision](id, actor(res)) });
        }),
      );
  };
}
