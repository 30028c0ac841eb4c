// The files `asimov init` writes: a commented starter `.asimov/policy.yaml` showing every key, and
// `.asimov/ground-rules.md` for the judge. Built from sections so a test can load the examples too.

interface Section {
  /** Comment lines explaining the key (without the `# `). */
  explain: string[];
  /** YAML for the key; written commented out unless `active`. */
  yaml: string;
  active?: boolean;
}

const HEADER = [
  'asimov policy for this project.',
  'asimov checks each tool call an AI agent makes (shell commands, file writes, fetches, MCP calls)',
  'before it runs. Tiers, most severe first: hard_deny (always refused) > soft_deny and unknown',
  '(a person, or the judge if configured, decides) > allow (runs).',
  'This file may TIGHTEN the policy freely. Settings that LOOSEN it (a lower tier, allow rules,',
  'allowedDomains, judge, mcp, tools) or run commands (chains) apply only after you review the file',
  'and run `asimov trust`; any edit needs trusting again. Remove the `# ` in front of a block to use',
  'it; `asimov test` checks the file.',
];

const SECTIONS: Section[] = [
  {
    explain: ['version: the format of this file (required; must be 1).'],
    yaml: 'version: 1',
    active: true,
  },
  {
    explain: [
      'rules: set the tier of a built-in rule by id; `family.*` sets a whole family.',
      '`asimov rules` lists the ids. A value is a tier or { tier: … }.',
    ],
    yaml: `rules:
  git.push-default-branch: soft_deny
  publish.*: hard_deny
  net.upload: { tier: hard_deny }`,
  },
  {
    explain: [
      'custom: rules of your own. Every key given under `match` must match. The examples are',
      'checked when the policy loads: each `match` example must trigger the rule, no `notMatch` may.',
    ],
    yaml: `custom:
  - id: local.no-prod-psql            # your own dotted id; must not reuse a built-in id
    tier: hard_deny                    # hard_deny | soft_deny | unknown | allow
    reason: Never touch the production database from an agent; use the staging database.   # shown to the agent
    match:
      command: [psql, -h, "*prod*"]    # argv prefix; each element is a glob over that word
    examples:
      match: ["psql -h prod-db.internal"]
      notMatch: ["psql -h localhost"]
  - id: local.kube-prod
    tier: soft_deny
    reason: Commands against the production cluster need a person's approval.
    match:
      pattern: "--context[= ]prod"     # regular expression over the command's words joined by spaces
    examples:
      match: ["kubectl --context=prod get pods"]
      notMatch: ["kubectl --context=dev get pods"]
  - id: local.deploy-files
    tier: soft_deny
    reason: Deployment manifests are reviewed by a person before they change.
    match:
      path: ["deploy/**"]              # globs over the call's paths; ~ and project-relative allowed
      tools: [write, edit]             # shell, write, edit, read, fetch, search, mcp, or a client's tool name
    examples:
      match: [{ tool: write, input: { file_path: deploy/app.yaml } }]
      notMatch: [{ tool: write, input: { file_path: src/app.ts } }]
  - id: local.no-corp-paste
    tier: hard_deny
    reason: Internal hosts and paste sites are not for agents; ask a person to share what is needed.
    match:
      url: ["*.corp.example.com", "https://paste.*/**"]   # host globs or URL globs
    examples:
      match: [{ tool: fetch, input: { url: "https://wiki.corp.example.com/x" } }]
      notMatch: [{ tool: fetch, input: { url: "https://example.com/" } }]
  - id: local.github-reads
    tier: allow                        # allow rules loosen the policy: they need \`asimov trust\`
    reason: Reading issues and pull requests on GitHub is fine.
    match:
      tool: "mcp__github__get_*"       # glob over the client's own tool name
    examples:
      match: [{ tool: mcp__github__get_issue, input: { number: 1 } }]
      notMatch: [{ tool: mcp__github__create_issue, input: { title: x } }]
  - id: local.clean-build
    tier: allow
    reason: Removing the build output is routine.
    match:
      command: [rm, -rf, dist]
    overrides: [fs.rm-recursive]       # tier allow only: these rules do not apply where this one matches
    examples:
      match: ["rm -rf dist"]
      notMatch: ["rm -rf src"]`,
  },
  {
    explain: ['protectedPaths: writes, edits and deletes here are soft_deny at least. Globs; ~ and project-relative.'],
    yaml: 'protectedPaths: ["deploy/**", "~/.kube/**"]',
  },
  {
    explain: ['allowedDomains: hosts that uploads and fetches may go to without being flagged (loosening).'],
    yaml: 'allowedDomains: ["api.mycorp.com", "*.mycorp.dev"]',
  },
  {
    explain: ['defaultBranches: branches treated as a default branch (pushes there are guarded); added to main and master.'],
    yaml: 'defaultBranches: [main, master, trunk]',
  },
  {
    explain: [
      'judge: the LLM that reviews soft_deny and unknown calls against .asimov/ground-rules.md (loosening).',
      'GATE_CHECK=false in the environment turns it off; GATE_CHECK=true turns it on with these defaults.',
    ],
    yaml: `judge:
  provider: anthropic                  # anthropic | openai (any OpenAI-compatible endpoint) | claude-cli
  model: claude-haiku-4-5
  baseUrl: https://api.anthropic.com   # e.g. http://localhost:11434/v1 for Ollama
  timeoutMs: 30000
  onUncertain: ask                     # ask | deny: when the judge is unsure, fails or times out
  sendUserRequest: false               # true: the judge also sees the user's own messages (Claude Code)`,
  },
  {
    explain: [
      'chains: your own checks, run after asimov allows (or would ask about) a call, in order. Each gets the call',
      "as a Claude Code PreToolUse hook payload on stdin; exit 0 passes, exit 2 blocks with stderr as the reason.",
      'A chain that cannot answer (missing, timed out, another exit code) blocks unless `optional: true`.',
      'Chains run commands, so they need `asimov trust`. Relative commands start from this project.',
    ],
    yaml: `chains:
  - tools: [shell]                     # shell | write | edit | read | fetch | search | mcp | all
    command: ./scripts/check-command.sh
    timeoutMs: 5000                    # default 5000, at most 60000
    optional: false                    # true: a missing, failing or slow chain passes instead of blocking`,
  },
  {
    explain: ['mcp: how `asimov mcp proxy` reads upstream tools (loosening: needs `asimov trust`).'],
    yaml: `mcp:
  shellTools: [run_command_custom]     # tools whose \`command\` argument is a shell command, analysed as one
  roots: [~/shared-data]               # directories the proxy may pass upstream as roots, besides the project`,
  },
  {
    explain: ["tools: limits of `asimov mcp tools`, asimov's own gated bash/read/write/edit (loosening: needs `asimov trust`)."],
    yaml: `tools:
  env: [GITHUB_TOKEN]                  # environment variables passed to commands, besides the basic ones
  roots: [~/other-repo]                # directories the tools may touch besides the working directory
  timeoutMs: 120000                    # a command's time limit; at most 600000
  maxOutputBytes: 1048576              # output kept per call; at most 4194304`,
  },
  {
    explain: ['tests: calls and the tier (or verdict allow/deny/ask) they must get; `asimov test` runs them.'],
    yaml: `tests:
  - command: "rm -rf /"
    expect: hard_deny
    rule: fs.rm-catastrophic                # optional: the rule that must decide it
  - tool: write
    input: { file_path: .env }
    expect: soft_deny
  - command: "git status"
    cwd: .                             # optional, relative to the project root
    expect: allow`,
  },
];

function comment(lines: string[]): string {
  return lines.map((l) => `# ${l}`.trimEnd()).join('\n');
}

function render(uncommented: boolean): string {
  const parts = [comment(HEADER)];
  for (const s of SECTIONS) {
    const body = s.active || uncommented ? s.yaml : comment(s.yaml.split('\n'));
    parts.push(`${comment(s.explain)}\n${body}`);
  }
  return `${parts.join('\n\n')}\n`;
}

/** The starter `.asimov/policy.yaml`: only `version: 1` is active; every other key is shown commented. */
export const STARTER_POLICY: string = render(false);

/** The same file with every example block switched on; a test loads it to keep the comments honest. */
export function starterPolicyWithExamples(): string {
  return render(true);
}

/** The starter `.asimov/ground-rules.md`: short natural-language rules the judge applies. */
export const STARTER_GROUND_RULES = `# Ground rules

The asimov judge reads these rules when a tool call is neither clearly safe nor clearly forbidden.
Keep them short and concrete; say what must not happen, not how to check it.

- Never send secrets off this machine: keys, tokens, passwords, \`.env\` contents, SSH keys, cookies.
- Change files only inside this project (temporary files are fine); never in the home directory or the system.
- Never rewrite or delete shared history: no force-pushes, no deleting remote branches or tags.
- Do not publish, release or deploy anything; a person does that.
- Do not touch production systems, databases or credentials; local and test environments are fine.
- Do not install software system-wide or change system configuration.
- Download only from well-known sources, and never run a script straight from the internet.
- Do not weaken safety tooling: leave asimov, hooks, agent settings and CI checks alone.
- When unsure, ask the person.
`;
