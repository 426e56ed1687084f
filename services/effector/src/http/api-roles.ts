import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { HttpRequestError, principalOf, type Principal } from '@rag-immune/worker-runtime';

/**
 * What a caller of the effector's API may do: `read` (actions, snapshots, grants, mode, audit),
 * `operate` (rollback, re-open an incident, change the mode) and `grant` (approve or deny a repair
 * waiting for a human). Who approves a repair need not be who can roll one back.
 */
export const API_ROLES = ['read', 'operate', 'grant'] as const;
export type ApiRole = (typeof API_ROLES)[number];

/** Caller name → its roles; null: roles are not configured and every authenticated caller may do everything. */
export type ApiRoles = Readonly<Record<string, readonly ApiRole[]>> | null;

/** EFFECTOR_API_ROLES: `alice=read+operate,bob=read+grant` (comma- or newline-separated), names of EFFECTOR_API_TOKENS. */
export const ApiRolesEnv = z.string().transform((text, ctx) => {
  const roles: Record<string, ApiRole[]> = {};
  for (const entry of text.split(/[,\n]/).map((e) => e.trim())) {
    if (entry === '') continue;
    const [name = '', list = '', ...rest] = entry.split('=').map((part) => part.trim());
    const given = list.split('+').map((r) => r.trim());
    if (
      !/^[\w.@-]{1,100}$/.test(name) ||
      rest.length > 0 ||
      !given.every((r): r is ApiRole => (API_ROLES as readonly string[]).includes(r))
    ) {
      ctx.addIssue({ code: 'custom', message: `expected name=role[+role] with roles ${API_ROLES.join(', ')}, got "${entry}"` });
      return z.NEVER;
    }
    if (name in roles) {
      ctx.addIssue({ code: 'custom', message: `${name} appears twice` });
      return z.NEVER;
    }
    roles[name] = [...new Set(given)];
  }
  return roles;
});

/**
 * The roles of a request's caller. With roles configured, a caller's own token has its listed roles
 * (none when unlisted), and the shared token or an anonymous development caller, whose name nobody
 * vouches for, may only read.
 */
export function rolesOf(roles: ApiRoles, principal: Principal | undefined): ReadonlySet<ApiRole> {
  if (roles === null) return new Set(API_ROLES);
  if (principal?.verified === true) return new Set(roles[principal.name] ?? []);
  return new Set<ApiRole>(['read']);
}

/** Express middleware: 403 naming the missing role, unless the caller has it. */
export function requireRole(roles: ApiRoles, role: ApiRole, onRefused?: (caller: string, req: Request) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const principal = principalOf(res);
    if (rolesOf(roles, principal).has(role)) return next();
    const caller = principal?.name ?? 'anonymous';
    const refusal = new HttpRequestError(403, `caller ${caller} lacks the ${role} role (EFFECTOR_API_ROLES)`);
    void (onRefused?.(caller, req) ?? Promise.resolve()).then(
      () => next(refusal),
      () => next(refusal),
    );
  };
}
