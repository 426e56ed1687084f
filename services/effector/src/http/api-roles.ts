import type { Request } from 'express';
import { callerRoles, roleGate, roleTableEnv, type Principal, type RoleTable } from '@rag-immune/worker-runtime';

/**
 * What a caller of the effector's API may do: `read` (actions, snapshots, grants, mode, audit),
 * `operate` (rollback, re-open an incident, change the mode) and `grant` (approve or deny a repair
 * waiting for a human). Who approves a repair need not be who can roll one back.
 */
export const API_ROLES = ['read', 'operate', 'grant'] as const;
export type ApiRole = (typeof API_ROLES)[number];

/** Caller name → its roles; null: roles are not configured and every authenticated caller may do everything. */
export type ApiRoles = RoleTable<ApiRole>;

/** EFFECTOR_API_ROLES: `alice=read+operate,bob=read+grant` (comma- or newline-separated), names of EFFECTOR_API_TOKENS. */
export const ApiRolesEnv = roleTableEnv(API_ROLES);

/** The roles of a request's caller (the shared token or an anonymous caller may only read). */
export function rolesOf(roles: ApiRoles, principal: Principal | undefined): ReadonlySet<ApiRole> {
  return callerRoles(API_ROLES, roles, principal, 'read');
}

/** Express middleware: 403 naming the missing role, unless the caller has it. */
export function requireRole(roles: ApiRoles, role: ApiRole, onRefused?: (caller: string, req: Request) => Promise<void>) {
  return roleGate({ all: API_ROLES, table: roles, readRole: 'read', envName: 'EFFECTOR_API_ROLES' }, role, onRefused);
}
