// Roles (DESIGN §11): a user is an `admin` (reads and changes everything) or a `viewer` (reads the
// dashboard, REST reads, history and MQTT state; changes nothing). One rule decides whether a
// write is allowed, for REST (the request guard, src/auth/guard.ts), the embedded broker
// (src/mqtt/acl.ts: MQTT publishes, also over /eventbus), the /eventbus bridge to an external
// broker (src/mqtt/bridge-publishes.ts) and websockets; every refusal names the role. With auth off there are no users: everyone may do everything (docs/security.md).

export const ROLES = ['admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
/** Users made before roles existed, or without --role, are admins. */
export const DEFAULT_ROLE: Role = 'admin';

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The one rule: may a user of this role change anything? */
export function mayWrite(role: Role): boolean {
  return role === 'admin';
}

/** Why a write by `user` is refused, naming the role and what was tried. */
export function writeRefusal(user: string, role: Role, what: string): string {
  return `user ${user} has the role ${role}, which may read but not change anything (${what}); an admin can change the role: edgeblocks user role ${user} admin`;
}

/** The role of the user who made a request, as the request guard found it; null with auth off. */
export function requestRole(req: object): Role | null {
  const role = (req as { role?: unknown }).role;
  return isRole(role) ? role : null;
}

/** The user who made a request, as the request guard found it; null with auth off. */
export function requestUser(req: object): string | null {
  const user = (req as { user?: unknown }).user;
  return typeof user === 'string' ? user : null;
}
