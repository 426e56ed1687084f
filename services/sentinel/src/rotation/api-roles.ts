import { callerRoles, roleGate, roleTableEnv, type Principal, type RoleTable } from '@rag-immune/worker-runtime';

/**
 * What a caller of the sentinel's rotation API may do, as the effector's roles (EFFECTOR_API_ROLES):
 * `read` sees proposals, `operate` accepts or rejects one (it changes what the sentinel watches).
 */
export const SENTINEL_ROLES = ['read', 'operate'] as const;
export type SentinelRole = (typeof SENTINEL_ROLES)[number];

/** Caller name → roles; null: not configured, every authenticated caller may do everything. */
export type SentinelRoles = RoleTable<SentinelRole>;

/** SENTINEL_API_ROLES: `alice=read+operate,bob=read` (comma- or newline-separated), names of SENTINEL_API_TOKENS. */
export const ApiRolesEnv = roleTableEnv(SENTINEL_ROLES);

/** With roles configured, a named token has its listed roles; the shared token or an anonymous caller only reads. */
export function rolesOf(roles: SentinelRoles, principal: Principal | undefined): ReadonlySet<SentinelRole> {
  return callerRoles(SENTINEL_ROLES, roles, principal, 'read');
}

/** Express middleware: 403 naming the missing role, unless the caller has it. */
export function requireRole(roles: SentinelRoles, role: SentinelRole) {
  return roleGate({ all: SENTINEL_ROLES, table: roles, readRole: 'read', envName: 'SENTINEL_API_ROLES' }, role);
}
