// POST /v1/execute: the seed's `/execute` with the gate built in. The command is decided as a `shell` call
// with the token's name as who asked; only an `allow` runs it (server/execute.ts), and a refusal answers 200
// with the decision and `executed: false`, so a caller can tell "refused" from "failed to ask".

import type { ServerDeps } from '../deps.ts';
import { ExecuteAnswerSchema, ExecuteBodySchema, executeCommand, type ExecuteBody } from '../execute.ts';
import { route, type RouteSpec } from '../route.ts';

export function executeRoutes(deps: ServerDeps): RouteSpec<any, any, any>[] {
  return [
    route<ExecuteBody>({
      method: 'POST',
      url: '/v1/execute',
      scope: 'execute',
      tag: 'execute',
      summary: 'Decide a shell command and run it when allowed',
      description:
        'The gate decides the command as a `shell` call at `cwd` (nobody is at a terminal: where a person would be asked, it is refused). ' +
        'Only an `allow` runs it: with `bash -c`, in `cwd` (which must lie inside the server\'s allowed roots, else 403 before anything is decided), ' +
        'with the environment cleared to an allowlist, in a process group of its own that is stopped on timeout, when it ends, or when the client disconnects; ' +
        'stdout and stderr are bounded in memory each. Any processed request answers 200: `executed` says whether the command ran.',
      body: ExecuteBodySchema,
      response: ExecuteAnswerSchema,
      handler: (ctx) => executeCommand(deps, ctx.body, ctx),
    }),
  ];
}
