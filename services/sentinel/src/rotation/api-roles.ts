import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { HttpRequestError, principalOf, type Principal } from '@rag-immune/worker-runtime';

/**
 * What a caller of the sentinel's rotation API may do, as the effector's roles (EFFECTOR_API_ROLES):
 * `read` sees proposals, `operate` accepts or rejects one (it changes what the sentinel watches).
 */
export const SENTINEL_ROLES = ['read', 'operate'] as const;
export type SentinelRole = (typeof SENTINEL_ROLES)[number];

/** Caller name → roles; null: not configured, every authenticated caller may do everything. */
export type SentinelRoles = Readonly<Record<string, readonly SentinelRole[]>> | null;

/** SENTINEL_API_ROLES: `alice=read+operate,bob=read` (comma- or newline-separated), names of SENTINEL_API_TOKENS. */
export const ApiRolesEnv = z.string().transform((text, ctx) => {
  const roles: Record<string, SentinelRole[]> = {};
  for (const entry of text.split(/[,\n]/).map((e) => e.trim())) {
    if (entry === '') continue;
    const [name = '', list = '', ...rest] = entry.split('=').map((part) => part.trim());
    const given = list.split('+').map((r) => r.trim());
    if (
      !/^[\w.@-]{1,100}$/.test(name) ||
      rest.length > 0 ||
      !given.every((r): r is SentinelRole => (SENTINEL_ROLES as readonly string[]).includes(r))
    ) {
      ctx.addIssue({ code: 'custom', message: `expected name=role[+role] with roles ${SENTINEL_ROLES.join(', ')}, got "${entry}"` });
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

/** With roles configured, a named token has its listed roles; the shared token or an anonymous caller only reads. */
export function rolesOf(roles: SentinelRoles, principal: Principal | undefined): ReadonlySet<SentinelRole> {
  if (roles === null) return new Set(SENTINEL_ROLES);
  if (principal?.verified === true) return new Set(roles[principal.name] ?? []);
  return new Set<SentinelRole>(['read']);
}

/** Express middleware: 403 naming the missing role, unless the caller has it. */
export function requireRole(roles: SentinelRoles, role: SentinelRole) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const principal = principalOf(res);
    if (rolesOf(roles, principal).has(role)) return next();
    next(new HttpRequestError(403, `caller ${principal?.name ?? 'anonymous'} lacks the ${role} role (SENTINEL_API_ROLES)`));
  };
}
