// Every route module of `asimov serve`, in the order the OpenAPI document lists them.

import type { ServerDeps } from '../deps.ts';
import type { RouteSpec } from '../route.ts';
import { approvalRoutes } from './approvals.ts';
import { decideRoutes } from './decide.ts';
import { executeRoutes } from './execute.ts';
import { metaRoutes } from './meta.ts';
import { proposalRoutes } from './proposals.ts';
import { tokenRoutes } from './tokens.ts';
import { dashboardRoutes } from './dashboard.ts';
import { auditRoutes } from './audit.ts';
import { teamRoutes } from './team.ts';
import { teamPolicyRoutes } from './team-policy.ts';

export type RouteModule = (deps: ServerDeps) => RouteSpec<any, any, any>[];

export const SERVER_ROUTE_MODULES: readonly RouteModule[] = [
  decideRoutes,
  executeRoutes,
  proposalRoutes,
  tokenRoutes,
  approvalRoutes,
  dashboardRoutes,
  auditRoutes,
  teamRoutes,
  teamPolicyRoutes,
];

/** Every route of the server: each module's, then the public ones (which describe all of them). */
export function allRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  const own = SERVER_ROUTE_MODULES.flatMap((m) => m(deps));
  const meta = metaRoutes(deps, () => [...own, ...meta]);
  return [...own, ...meta];
}
