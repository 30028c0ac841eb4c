// CI template expressions inside command lines: `${{ … }}` (GitHub Actions, Gitea, Azure templates),
// `$[[ … ]]` (GitLab inputs), `$[ … ]` and dotted `$(a.b)` macros (Azure). The CI system pastes their value
// into the script TEXT before the shell reads it, so for the shell engine each becomes a variable reference
// (a value nobody can know) and the line stays parseable; which contexts they read is kept for the signals.

/** The `${{ … }}` expressions of a line, with their offsets. */
export function expressionsOf(line: string): Array<{ text: string; body: string; index: number }> {
  const out: Array<{ text: string; body: string; index: number }> = [];
  for (const m of line.matchAll(/\$\{\{([\s\S]*?)\}\}/g)) out.push({ text: m[0], body: m[1]!.trim(), index: m.index });
  return out;
}

/** A shell variable name for an expression: `secrets.NPM_TOKEN` -> NPM_TOKEN, `github.event.issue.title` -> GITHUB_EVENT_ISSUE_TITLE. */
export function variableFor(body: string): string {
  const b = body.trim();
  const simple = /^(?:secrets|env|vars)\.([A-Za-z_][\w-]*)$/.exec(b) ?? /^(?:secrets|env|vars)\[['"]([^'"]+)['"]\]$/.exec(b);
  const raw = simple ? simple[1]! : b;
  let name = raw.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase().slice(0, 60);
  if (name === '') name = 'CI_EXPR';
  if (/^\d/.test(name)) name = '_' + name;
  return name;
}

/** The line with each CI expression replaced by a shell variable reference (braced when a name character follows). */
export function replaceExpressions(line: string): string {
  const sub = (whole: string, body: string, offset: number, s: string): string => {
    const name = variableFor(body);
    const next = s[offset + whole.length] ?? '';
    return /[A-Za-z0-9_]/.test(next) ? '${' + name + '}' : '$' + name;
  };
  let out = line.replace(/\$\{\{([\s\S]*?)\}\}/g, sub);
  out = out.replace(/\$\[\[([\s\S]*?)\]\]/g, sub); // GitLab inputs
  out = out.replace(/\$\[([^\]\n]*)\]/g, sub); // Azure runtime expressions
  // Azure macros `$(Build.SourceBranch)`: only dotted names (an undotted `$(date)` is the shell's own substitution).
  out = out.replace(/\$\(([A-Za-z_][\w]*(?:\.[\w]+)+)\)/g, sub);
  return out;
}

// Contexts whose text the person who opens an issue or a pull request chooses (GitHub Security Lab's list,
// plus discussions and workflow_run's copies of the head branch and commit). `inputs.*` of workflow_dispatch
// are typed by people with write access: not listed.
const UNTRUSTED = new RegExp(
  '\\bgithub\\.(?:' + [
    'event\\.issue\\.(?:title|body)',
    'event\\.pull_request\\.(?:title|body|head\\.ref|head\\.label|head\\.repo\\.default_branch)',
    'event\\.(?:comment|review|review_comment)\\.body',
    'event\\.discussion\\.(?:title|body)',
    'event\\.pages\\.[^.\\s]+\\.page_name',
    'event\\.commits\\.[^.\\s]+\\.(?:message|author\\.(?:email|name))',
    'event\\.head_commit\\.(?:message|author\\.(?:email|name))',
    'event\\.workflow_run\\.(?:head_branch|display_title|head_commit\\.(?:message|author\\.(?:email|name))|pull_requests\\.[^.\\s]+\\.head\\.ref)',
    'head_ref',
  ].join('|') + ')\\b',
);

// Whole objects that contain such text: dangerous when serialised into the line (toJSON(github.event)).
const UNTRUSTED_OBJECT = /\btoJSON\(\s*github(?:\.event(?:\.(?:issue|pull_request|comment|review|review_comment|discussion|head_commit|commits|pages|workflow_run))?)?\s*\)/;

/** `github['event']['issue']['title']` and `commits[0]` spelled as dotted paths, for matching. */
function normalisePaths(body: string): string {
  return body.replace(/\[\s*['"]([^'"]+)['"]\s*\]/g, '.$1').replace(/\[\s*(?:\d+|\*)\s*\]/g, '.*').replace(/\.\*/g, '.x');
}

/** Does this expression body read text an outsider wrote? Returns the context named, or null. */
export function untrustedContext(body: string): string | null {
  const n = normalisePaths(body);
  const m = UNTRUSTED.exec(n) ?? UNTRUSTED_OBJECT.exec(n);
  return m ? m[0] : null;
}

/** Does this expression body read a secret (`secrets.X`, `toJSON(secrets)`, `github.token`)? */
export function readsSecret(body: string): boolean {
  const n = normalisePaths(body);
  return /\bsecrets\b/.test(n) || /\bgithub\.token\b/.test(n);
}

/** Does this expression serialise every secret or the whole environment? Always a signal. */
export function dumpsAllSecrets(body: string): string | null {
  const m = /\btoJSON\(\s*(secrets|env)\s*\)/.exec(body);
  return m ? m[0] : null;
}

/** Is every secret this expression reads the runner's own GitHub token? */
export function onlyGithubToken(body: string): boolean {
  const n = normalisePaths(body);
  const refs = [...n.matchAll(/\bsecrets\.([\w-]+)|\bgithub\.token\b|\bsecrets\b/g)];
  return refs.length > 0 && refs.every((r) => r[0] === 'github.token' || r[1] === 'GITHUB_TOKEN');
}
