import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { HttpRequestError, principalOf, type Principal } from './http-app.ts';

/**
 * Per-caller roles on a worker's API (the effector's read/operate/grant, the sentinel's read/operate):
 * a `<WORKER>_API_ROLES` variable names each named token's roles. One parser and one gate for every
 * worker, so a role means the same thing wherever it is checked.
 */

/** Caller name → its roles; null: roles are not configured and every authenticated caller may do everything. */
export type RoleTable<R extends string> = Readonly<Record<string, readonly R[]>> | null;

/** `alice=read+operate,bob=read` (comma- or newline-separated); every role one of `all`; a name once. */
export function roleTableEnv<R extends string>(all: readonly R[]) {
  return z.string().transform((text, ctx) => {
    const roles: Record<string, R[]> = {};
    for (const entry of text.split(/[,\n]/).map((e) => e.trim())) {
      if (entry === '') continue;
      const [name = '', list = '', ...rest] = entry.split('=').map((part) => part.trim());
      const given = list.split('+').map((r) => r.trim());
      if (!/^[\w.@-]{1,100}$/.test(name) || rest.length > 0 || !given.every((r): r is R => (all as readonly string[]).includes(r))) {
        ctx.addIssue({ code: 'custom', message: `expected name=role[+role] with roles ${all.join(', ')}, got "${entry}"` });
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
}

/**
 * The roles of a request's caller. With roles configured, a caller's own token has its listed roles
 * (none when unlisted), and the shared token or an anonymous development caller, whose name nobody
 * vouches for, may only read.
 */
export function callerRoles<R extends string>(
  all: readonly R[],
  table: RoleTable<R>,
  principal: Principal | undefined,
  readRole: R,
): ReadonlySet<R> {
  if (table === null) return new Set(all);
  if (principal?.verified === true) return new Set(table[principal.name] ?? []);
  return new Set<R>([readRole]);
}

/** Express middleware: 403 naming the missing role and the variable that grants it, unless the caller has it. */
export function roleGate<R extends string>(
  options: { all: readonly R[]; table: RoleTable<R>; readRole: R; envName: string },
  role: R,
  onRefused?: (caller: string, req: Request) => Promise<void>,
) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const principal = principalOf(res);
    if (callerRoles(options.all, options.table, principal, options.readRole).has(role)) return next();
    const caller = principal?.name ?? 'anonymous';
    const refusal = new HttpRequestError(403, `caller ${caller} lacks the ${role} role (${options.envName})`);
    void (onRefused?.(caller, req) ?? Promise.resolve()).then(
      () => next(refusal),
      () => next(refusal),
    );
  };
}
