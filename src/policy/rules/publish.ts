// Built-in rules: publish family. Publishing releases code to the world and cannot be taken back cleanly;
// it is sometimes the task, so it is soft_deny (a person confirms), and hard_deny where it removes what
// others already depend on (unpublish, yank, deleting a repository).

import { parseArgs, type ArgSpec } from '../../shell/args.ts';
import { programName, staticValue } from '../../shell/program.ts';
import type { SimpleCommand, Word } from '../../shell/types.ts';
import { staticText } from '../../shell/static-output.ts';
import { defineShellRule, type Rule, type RuleHit } from '../rule.ts';

function values(words: readonly Word[]): string[] {
  return words.map((w) => staticValue(w) ?? w.value);
}

/** Operands and flags of a command, past its program name. */
function args(cmd: SimpleCommand, spec: ArgSpec = {}): { ops: string[]; flags: Set<string> } {
  const p = parseArgs(cmd, spec);
  return { ops: values(p.operands), flags: new Set(p.flags.keys()) };
}

const DRY_RUN = ['dry-run', 'dryrun', 'n'];

function dry(flags: Set<string>, ...names: string[]): boolean {
  for (const n of [...DRY_RUN, ...names]) if (flags.has(n)) return true;
  return false;
}

const NPM_SPEC: ArgSpec = {
  shortWithValue: 'w',
  longWithValue: ['registry', 'tag', 'otp', 'access', 'workspace', 'prefix', 'userconfig', 'cache', 'scope', 'filter', 'dir', 'C', 'cwd', 'loglevel', 'provenance-file'],
};

/** npm, yarn, pnpm, bun and the release tools built on them. */
function npmHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd);
  const { ops, flags } = args(cmd, NPM_SPEC);
  const [a, b, c] = ops;
  const isDry = flags.has('dry-run');
  switch (name) {
    case 'npm':
    case 'pnpm':
    case 'bun':
    case 'yarn': {
      // yarn berry: `yarn npm publish`, `yarn npm tag add`.
      const [s, s2] = name === 'yarn' && a === 'npm' ? [b, c] : [a, b];
      if (s === 'publish' || s === 'pub') return isDry ? null : { reason: `\`${name} publish\` releases the package to the registry for everyone; confirm with the user first.` };
      if (s === 'unpublish') return { tier: 'hard_deny', reason: `\`${name} unpublish\` removes a released version that others may depend on; never do this from an agent.` };
      if (s === 'deprecate' || s === 'undeprecate') return { reason: `\`${name} ${s}\` shows a warning to everyone who installs the package; confirm with the user first.` };
      if ((s === 'dist-tag' || s === 'dist-tags' || s === 'tag') && s2 !== undefined && ['add', 'rm', 'remove', 'set'].includes(s2)) return { reason: 'Changing dist-tags changes what everyone installs; confirm with the user first.' };
      if ((s === 'owner' || s === 'author') && s2 !== undefined && ['add', 'rm', 'remove'].includes(s2)) return { reason: 'Changing package owners changes who can publish it; confirm with the user first.' };
      if (s === 'access' && s2 !== undefined && !['list', 'ls', 'get'].includes(s2)) return { reason: 'Changing package access or visibility; confirm with the user first.' };
      return null;
    }
    case 'lerna':
      if (a === 'publish' || a === 'version') return isDry || flags.has('no-push') && a === 'version' ? null : { reason: `\`lerna ${a}\` tags, pushes and publishes packages; confirm with the user first.` };
      return null;
    case 'changeset':
      return a === 'publish' ? { reason: '`changeset publish` releases packages to the registry; confirm with the user first.' } : null;
    case 'np':
    case 'semantic-release':
    case 'release-it':
      return isDry || flags.has('d') && name === 'semantic-release' ? null : { reason: `\`${name}\` tags and publishes a release; confirm with the user first.` };
    default:
      return null;
  }
}

/** Past cargo's `+toolchain` and its global options. */
function cargoHit(cmd: SimpleCommand): RuleHit | null {
  const words = cmd.argv.slice(1).filter((w) => !w.value.startsWith('+'));
  const p = parseArgs(words, { shortWithValue: 'ZCpj', longWithValue: ['config', 'manifest-path', 'registry', 'index', 'token', 'package', 'target', 'features', 'color', 'jobs', 'target-dir'] });
  const ops = values(p.operands);
  const flags = new Set(p.flags.keys());
  if (ops[0] === 'publish') return dry(flags) ? null : { reason: '`cargo publish` releases the crate to crates.io permanently; confirm with the user first.' };
  if (ops[0] === 'yank') return flags.has('undo') ? null : { reason: '`cargo yank` withdraws a released version others depend on; confirm with the user first.' };
  if (ops[0] === 'owner' && (flags.has('add') || flags.has('remove') || flags.has('a') || flags.has('r'))) return { reason: 'Changing crate owners changes who can publish it; confirm with the user first.' };
  return null;
}

const PY_PUBLISHERS: Readonly<Record<string, readonly string[]>> = {
  twine: ['upload', 'register'],
  poetry: ['publish'],
  uv: ['publish'],
  flit: ['publish'],
  hatch: ['publish'],
  pdm: ['publish'],
  maturin: ['publish', 'upload'],
  rye: ['publish'],
};

function pythonPublishHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd) ?? '';
  const words = values(cmd.argv.slice(1));
  if (PY_PUBLISHERS[name]) {
    const p = args(cmd, { shortWithValue: 'ru', longWithValue: ['repository', 'repository-url', 'username', 'password', 'config-file', 'index', 'publish-url', 'token'] });
    if (p.ops[0] !== undefined && PY_PUBLISHERS[name]!.includes(p.ops[0]) && !dry(p.flags)) {
      return { reason: `\`${name} ${p.ops[0]}\` releases the package to a package index; confirm with the user first.` };
    }
    return null;
  }
  // python -m twine upload …, python setup.py sdist upload
  const m = words.indexOf('-m');
  if (m >= 0 && words[m + 1] === 'twine' && (words[m + 2] === 'upload' || words[m + 2] === 'register')) return { reason: '`twine upload` releases the package to PyPI; confirm with the user first.' };
  if (words[0]?.endsWith('setup.py') && words.slice(1).some((w) => w === 'upload' || w === 'register')) return { reason: '`setup.py upload` releases the package to PyPI; confirm with the user first.' };
  return null;
}

const PYTHONS = ['python', 'python2', 'python3', 'python3.8', 'python3.9', 'python3.10', 'python3.11', 'python3.12', 'python3.13', 'python3.14', 'py', 'pypy', 'pypy3'];

function gemHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd);
  const { ops, flags } = args(cmd, { shortWithValue: 'kv', longWithValue: ['key', 'host', 'otp', 'version', 'platform'] });
  if (name === 'rake') return ops.some((o) => o === 'release' || o.startsWith('release:')) ? { reason: '`rake release` tags, pushes and publishes the gem; confirm with the user first.' } : null;
  if (ops[0] === 'push') return { reason: '`gem push` releases the gem to RubyGems; confirm with the user first.' };
  if (ops[0] === 'yank') return { tier: 'hard_deny', reason: '`gem yank` removes a released version others depend on; never do this from an agent.' };
  if (ops[0] === 'owner' && (flags.has('a') || flags.has('r') || flags.has('add') || flags.has('remove'))) return { reason: 'Changing gem owners changes who can publish it; confirm with the user first.' };
  return null;
}

const DOCKER_GLOBAL: ArgSpec = { shortWithValue: 'Hcl', longWithValue: ['host', 'context', 'config', 'log-level', 'tlscacert', 'tlscert', 'tlskey'] };

function dockerPushHit(cmd: SimpleCommand): RuleHit | null {
  const name = programName(cmd);
  const words = values(cmd.argv.slice(1));
  if (name === 'skopeo') {
    const p = args(cmd, { longWithValue: ['authfile', 'dest-creds', 'src-creds', 'format'] });
    return (p.ops[0] === 'copy' || p.ops[0] === 'sync') && p.ops.slice(1).some((o) => o.startsWith('docker://')) && (p.ops[p.ops.length - 1] ?? '').startsWith('docker://') ? { reason: '`skopeo copy` to a registry publishes the image; confirm with the user first.' } : null;
  }
  if (name === 'crane') {
    const s = words.find((w) => !w.startsWith('-'));
    return s === 'push' || s === 'copy' || s === 'cp' || s === 'tag' || s === 'append' || s === 'mutate' ? { reason: `\`crane ${s}\` writes to a registry; confirm with the user first.` } : null;
  }
  if (name === 'ko') return words[0] === 'publish' || words[0] === 'build' && !words.includes('--push=false') || words[0] === 'apply' || words[0] === 'resolve' ? { reason: '`ko` builds and pushes images to a registry; confirm with the user first.' } : null;
  const p = parseArgs(cmd, DOCKER_GLOBAL);
  const ops = values(p.operands);
  const [a, b] = ops;
  const push = (): RuleHit => ({ reason: `\`${name} push\` publishes the image to a registry; confirm with the user first.`, subject: ops.slice(1).join(' ') });
  if (a === 'push') return push();
  if ((a === 'image' || a === 'manifest' || a === 'compose' || a === 'plugin') && b === 'push') return push();
  if (name === 'docker-compose' && a === 'push') return push();
  const hasPush = words.some((w) => w === '--push' || w === '--push=true' || /^--output=.*type=registry/.test(w));
  if ((a === 'build' || a === 'buildx' || a === 'builder') && hasPush) return { reason: 'Building with --push publishes the image to a registry; confirm with the user first.' };
  if (a === 'buildx' && b === 'imagetools' && ops[2] === 'create') return { reason: '`buildx imagetools create` writes a manifest to a registry; confirm with the user first.' };
  return null;
}

/** Environment variables that point gh or glab at another repository or host. */
const FORGE_TARGET_VARS = /\b(GH_REPO|GH_HOST|GH_ENTERPRISE_TOKEN|GITHUB_ENTERPRISE_TOKEN|GITLAB_HOST|GL_HOST|GITLAB_URI)\b/;

/** Forge subcommands that propose or discuss a change (gh and glab spellings). */
const PROPOSE: ReadonlySet<string> = new Set([
  'pr create', 'pr new', 'pr edit', 'pr comment', 'pr ready', 'issue create', 'issue new', 'issue comment', 'issue edit',
  'mr create', 'mr new', 'mr update', 'mr note', 'issue note', 'issue update',
]);

const GH_SPEC: ArgSpec = { shortWithValue: 'RXHfFpqt', longWithValue: ['repo', 'method', 'header', 'field', 'raw-field', 'jq', 'template', 'input', 'hostname', 'title', 'notes', 'notes-file', 'target', 'visibility', 'body', 'subject'] };
/** gh's spec with the body-file options of pr/issue create and comment (-F there is --body-file). */
const PROPOSE_SPEC: ArgSpec = { ...GH_SPEC, longWithValue: [...(GH_SPEC.longWithValue ?? []), 'body-file', 'description-file'] };

function ghApiMethod(cmd: SimpleCommand): string | null {
  const p = parseArgs(cmd, GH_SPEC);
  const m = p.flags.get('X') ?? p.flags.get('method');
  return typeof m === 'string' ? m.toUpperCase() : null;
}

/** Publishing hits are soft unless they say otherwise (the rules' own tier is the hard one, for removals). */
function soften(h: RuleHit | null): RuleHit | null {
  return h === null ? null : { tier: 'soft_deny', ...h };
}

// ---------------------------------------------------------------------------------------------------------

export const rules: Rule[] = [
  // Soft (hard for unpublish): a release reaches every user of the package and cannot be recalled cleanly.
  defineShellRule({
    id: 'publish.npm',
    tier: 'hard_deny',
    programs: ['npm', 'yarn', 'pnpm', 'bun', 'lerna', 'changeset', 'np', 'semantic-release', 'release-it'],
    reason: 'Publishing to the npm registry releases code to everyone; confirm with the user first.',
    examples: {
      match: ['npm publish', 'npm publish --access public', 'yarn publish', 'yarn npm publish', 'pnpm -r publish', 'bun publish', 'npm unpublish my-pkg@1.0.0', 'npm deprecate my-pkg "use x"', 'npm dist-tag add my-pkg@2.0.0 latest', 'lerna publish', 'semantic-release'],
      notMatch: ['npm publish --dry-run', 'npm install', 'npm run publish-docs', 'pnpm pack', 'npm dist-tag ls my-pkg'],
    },
    match: (cmd) => soften(npmHit(cmd)),
  }),
  // Soft: crates.io keeps every published version for good; a release is sometimes the task, never silent.
  defineShellRule({
    id: 'publish.cargo',
    tier: 'soft_deny',
    programs: ['cargo'],
    reason: 'Publishing to crates.io is permanent; confirm with the user first.',
    examples: {
      match: ['cargo publish', 'cargo +nightly publish --allow-dirty', 'cargo yank --version 1.0.0', 'cargo owner --add github:org:team'],
      notMatch: ['cargo publish --dry-run', 'cargo build', 'cargo yank --version 1.0.0 --undo', 'cargo owner --list'],
    },
    match: (cmd) => cargoHit(cmd),
  }),
  // Soft: a release on PyPI reaches every user at once; sometimes the task, never silent.
  defineShellRule({
    id: 'publish.pypi',
    tier: 'soft_deny',
    programs: [...Object.keys(PY_PUBLISHERS), ...PYTHONS],
    reason: 'Uploading to a Python package index releases code to everyone; confirm with the user first.',
    examples: {
      match: ['twine upload dist/*', 'python -m twine upload dist/*', 'poetry publish --build', 'uv publish', 'flit publish', 'hatch publish', 'python3 setup.py sdist upload'],
      notMatch: ['poetry build', 'uv build', 'twine check dist/*', 'poetry publish --dry-run', 'python -m build'],
    },
    match: (cmd) => pythonPublishHit(cmd),
  }),
  // Soft (hard for yank): as for npm.
  defineShellRule({
    id: 'publish.gem',
    tier: 'hard_deny',
    programs: ['gem', 'rake'],
    reason: 'Publishing to RubyGems releases code to everyone; confirm with the user first.',
    examples: {
      match: ['gem push my-gem-1.0.0.gem', 'gem yank my-gem -v 1.0.0', 'rake release', 'bundle exec rake release'],
      notMatch: ['gem build my.gemspec', 'gem install rails', 'rake test'],
    },
    match: (cmd) => soften(gemHit(cmd)),
  }),
  // Soft: a pushed image is public (or shared) at once and may carry secrets baked into layers.
  defineShellRule({
    id: 'publish.docker-push',
    tier: 'soft_deny',
    programs: ['docker', 'podman', 'nerdctl', 'buildah', 'docker-compose', 'skopeo', 'crane', 'ko'],
    reason: 'Pushing an image publishes it to a registry; confirm with the user first.',
    examples: {
      match: ['docker push ghcr.io/org/app:latest', 'podman push app', 'docker buildx build --push -t x .', 'docker image push x', 'docker compose push', 'skopeo copy docker-archive:x.tar docker://reg/x', 'crane push img.tar reg/x'],
      notMatch: ['docker build -t app .', 'docker pull node:20', 'docker tag a b', 'docker buildx build --load -t x .'],
    },
    match: (cmd) => dockerPushHit(cmd),
  }),
  // Soft: releases notify watchers and feed installers; sometimes the task, never silent.
  defineShellRule({
    id: 'publish.gh-release',
    tier: 'soft_deny',
    programs: ['gh', 'glab'],
    reason: 'Creating, editing or deleting a release is visible to every user of the repository; confirm with the user first.',
    examples: {
      match: ['gh release create v1.0.0 --generate-notes', 'gh release upload v1.0.0 dist/app.zip', 'gh release delete v0.9.0 -y', 'gh release edit v1 --draft=false', 'glab release create v1.0.0'],
      notMatch: ['gh release list', 'gh release view v1.0.0', 'gh pr list', 'gh release download v1'],
    },
    match: (cmd) => {
      const { ops } = args(cmd, GH_SPEC);
      return ops[0] === 'release' && ops[1] !== undefined && ['create', 'upload', 'delete', 'edit', 'delete-asset', 'new'].includes(ops[1]) ? { subject: ops.slice(0, 3).join(' ') } : null;
    },
  }),
  // Hard for deleting a repository (everything in it is gone); soft for archiving, renaming or making it public.
  defineShellRule({
    id: 'publish.gh-repo',
    tier: 'hard_deny',
    programs: ['gh', 'glab'],
    reason: 'Deleting a repository destroys its issues, pull requests and history for everyone; never do this from an agent.',
    examples: {
      match: ['gh repo delete org/app --yes', 'glab repo delete group/app', 'gh repo archive org/app', 'gh repo edit --visibility public', 'gh repo create app --public --source=. --push', 'gh repo rename new-name'],
      notMatch: ['gh repo view', 'gh repo clone org/app', 'gh repo create app --private', 'gh repo list'],
    },
    match: (cmd) => {
      const p = parseArgs(cmd, GH_SPEC);
      const ops = values(p.operands);
      if (ops[0] !== 'repo') return null;
      const words = values(cmd.argv);
      switch (ops[1]) {
        case 'delete':
          return true;
        case 'archive':
        case 'unarchive':
        case 'rename':
        case 'transfer':
          return { tier: 'soft_deny', reason: `\`${programName(cmd)} repo ${ops[1]}\` changes the repository for everyone; confirm with the user first.` };
        case 'edit':
          return words.some((w) => /^--visibility(=public)?$/.test(w)) && words.some((w) => w === 'public' || w === '--visibility=public') ? { tier: 'soft_deny', reason: 'Making a repository public publishes all of its code and history; confirm with the user first.' } : null;
        case 'create':
          return words.includes('--public') ? { tier: 'soft_deny', reason: 'Creating a public repository publishes the code; confirm with the user first.' } : null;
        default:
          return null;
      }
    },
  }),
  // Allow: proposing a change for review (a pull request, a comment, an issue) in the project's own repository
  // is how an agent's work reaches the shared branch without pushing to it; it is visible, reviewable and
  // closable. Only with every argument known (a here-doc body is), and never with -R/--repo (another
  // repository is another audience: the project's text would leave for it); credentials and secret flows in
  // the text are dlp.* and secrets.exfiltrate's, which judge the same line. Merging, approving and closing are
  // not proposals (publish.gh-merge, or unknown). Attack tests: test/adversarial/cases/clis.jsonl (forge writes).
  defineShellRule({
    id: 'publish.gh-propose',
    tier: 'allow',
    programs: ['gh', 'glab'],
    reason: 'Proposes a change for review or writes in the project\'s own tracker: visible, reviewable and reversible.',
    examples: {
      match: ['gh pr create --base main --title "fix: x" --body "Closes #3"', 'gh pr create --fill', 'gh pr comment 12 --body "Updated the tests"', 'gh issue create --title "Flaky test" --body "seen twice"', 'gh pr edit 12 --add-label bug', 'glab mr create --fill', 'gh pr create --title t --body "$(cat <<\'EOF\'\n## Summary\n- x\nEOF\n)"'],
      notMatch: ['gh pr merge 12', 'gh pr review 12 --approve', 'gh pr create -R other/repo --fill', 'gh issue create --title x --body "$(cat notes.txt)"', 'gh pr close 12', 'gh pr create --body-file /etc/passwd --title x'],
    },
    match: (cmd, ctx, analysis) => {
      const p = parseArgs(cmd, PROPOSE_SPEC);
      const ops = values(p.operands);
      const verb = `${ops[0] ?? ''} ${ops[1] ?? ''}`;
      if (!PROPOSE.has(verb)) return null;
      const words = cmd.argv.slice(1);
      if (words.some((w) => { const v = staticValue(w) ?? ''; return v === '-R' || v.startsWith('--repo') || (v.startsWith('-R') && v.length > 2); })) return null;
      // The environment picks the repository or host too (GH_REPO=other/x gh pr create), set on the command or
      // earlier in the line.
      if (analysis !== undefined && analysis.commands.some((c) => FORGE_TARGET_VARS.test(c.text))) return null;
      // Every word known: literal, or a substitution whose output is known (a here-doc body).
      if (!words.every((w) => staticValue(w) !== null || (analysis !== undefined && staticText(analysis.commands, cmd, w) !== null))) return null;
      // A body or description read from a file: only a project file.
      for (const k of ['body-file', 'F', 'description-file']) {
        const f = p.flags.get(k);
        if (typeof f === 'string' && (f === '-' || !ctx.path(f).classes.has('project') || ctx.path(f).classes.has('credentials'))) return null;
      }
      return { subject: verb };
    },
  }),
  // Soft: merging a pull request lands code on the shared branch, the same as pushing to it.
  defineShellRule({
    id: 'publish.gh-merge',
    tier: 'soft_deny',
    programs: ['gh', 'glab'],
    reason: 'Merging a pull request lands code on the shared branch; confirm with the user first.',
    examples: {
      match: ['gh pr merge 12 --squash', 'gh pr merge --admin', 'glab mr merge 5'],
      notMatch: ['gh pr create --fill', 'gh pr view 12', 'gh pr checkout 12'],
    },
    match: (cmd) => {
      const { ops } = args(cmd, GH_SPEC);
      return (ops[0] === 'pr' || ops[0] === 'mr') && ops[1] === 'merge' ? true : null;
    },
  }),
  // Soft: DELETE through the forge's API removes whatever the path names (hooks, variables, branches).
  defineShellRule({
    id: 'publish.gh-api-delete',
    tier: 'soft_deny',
    programs: ['gh', 'glab'],
    reason: 'A DELETE through the GitHub/GitLab API removes whatever the path names; confirm with the user first.',
    examples: {
      match: ['gh api -X DELETE repos/org/app/hooks/1', 'glab api --method DELETE projects/1/variables/X', 'gh api --method=delete /repos/o/r/git/refs/heads/x'],
      notMatch: ['gh api repos/org/app', 'gh api -X GET user'],
    },
    match: (cmd) => {
      const { ops } = args(cmd, GH_SPEC);
      return ops[0] === 'api' && ghApiMethod(cmd) === 'DELETE' ? true : null;
    },
  }),
  // Soft: CI secrets and variables feed every pipeline; changing them is configuration of shared infrastructure.
  defineShellRule({
    id: 'publish.ci-secret',
    tier: 'soft_deny',
    programs: ['gh', 'glab'],
    reason: 'Setting or deleting CI secrets and variables changes every pipeline of the repository; confirm with the user first.',
    examples: {
      match: ['gh secret set NPM_TOKEN < token.txt', 'gh secret delete X', 'gh variable set ENV --body prod', 'glab variable delete CI_TOKEN'],
      notMatch: ['gh secret list', 'glab variable list'],
    },
    match: (cmd) => {
      const { ops } = args(cmd, GH_SPEC);
      return (ops[0] === 'secret' || ops[0] === 'variable') && ops[1] !== undefined && ['set', 'delete', 'remove', 'update', 'import'].includes(ops[1]) ? true : null;
    },
  }),
  // Soft (hard for unpublish): as for npm.
  defineShellRule({
    id: 'publish.vsce',
    tier: 'hard_deny',
    programs: ['vsce', 'ovsx'],
    reason: 'Publishing an editor extension releases it to every user of the marketplace; confirm with the user first.',
    examples: {
      match: ['vsce publish', 'vsce publish minor', 'ovsx publish x.vsix -p $TOKEN', 'vsce unpublish pub.ext'],
      notMatch: ['vsce package', 'vsce ls', 'ovsx --help'],
    },
    match: (cmd) => {
      const { ops } = args(cmd, { shortWithValue: 'pi', longWithValue: ['pat', 'packagePath', 'registryUrl'] });
      if (ops[0] === 'publish') return { tier: 'soft_deny' };
      if (ops[0] === 'unpublish') return { reason: '`vsce unpublish` removes the extension from every user; never do this from an agent.' };
      return null;
    },
  }),
  // Soft: the other package registries (NuGet, Maven, CocoaPods, pub.dev, Hex, Helm charts) release code the same way.
  defineShellRule({
    id: 'publish.registry',
    tier: 'soft_deny',
    programs: ['dotnet', 'nuget', 'mvn', 'mvnw', 'gradle', 'gradlew', 'pod', 'dart', 'flutter', 'mix', 'helm', 'conan', 'jfrog', 'swift'],
    reason: 'This publishes a package to a registry for everyone; confirm with the user first.',
    examples: {
      match: ['dotnet nuget push app.nupkg -k $KEY', 'nuget push x.nupkg', 'mvn deploy', 'mvn clean deploy -DskipTests', './gradlew publish', 'gradle publishToMavenCentral', 'pod trunk push', 'dart pub publish', 'flutter pub publish -f', 'mix hex.publish', 'helm push chart.tgz oci://reg/charts', 'mvn release:perform'],
      notMatch: ['mvn test', './gradlew build', 'dotnet build', 'dart pub get', 'flutter pub publish --dry-run', 'mix test', 'helm install x ./chart'],
    },
    match: (cmd) => {
      const name = programName(cmd);
      const { ops, flags } = args(cmd, { shortWithValue: 'kspDPfq', longWithValue: ['source', 'api-key', 'symbol-source', 'settings', 'file', 'project-dir'] });
      const [a, b] = ops;
      switch (name) {
        case 'dotnet':
          return a === 'nuget' && (b === 'push' || b === 'delete') ? true : null;
        case 'nuget':
          return a === 'push' || a === 'delete' ? true : null;
        case 'mvn':
        case 'mvnw':
          return ops.some((o) => o === 'deploy' || o === 'release:perform' || o === 'deploy:deploy' || o === 'deploy:deploy-file') ? true : null;
        case 'gradle':
        case 'gradlew':
          return ops.some((o) => /^(:?[\w-]+:)*publish\w*$/.test(o) && !/ToMavenLocal$/.test(o)) ? true : null;
        case 'pod':
          return a === 'trunk' && b !== undefined && ['push', 'delete', 'deprecate', 'add-owner', 'remove-owner'].includes(b) ? true : null;
        case 'dart':
        case 'flutter':
          return a === 'pub' && (b === 'publish' || b === 'lish') && !dry(flags) ? true : null;
        case 'mix':
          return a === 'hex.publish' || a === 'hex.retire' || a === 'hex.owner' && b !== 'list' ? true : null;
        case 'helm':
          return a === 'push' || a === 'cm-push' ? true : null;
        case 'conan':
          return a === 'upload' || a === 'remove' && flags.has('r') ? true : null;
        case 'jfrog':
          return (a === 'rt' || a === 'npm' || a === 'mvn') && b !== undefined && ['upload', 'u', 'delete', 'del', 'publish', 'move', 'mv'].includes(b) ? true : null;
        case 'swift':
          return a === 'package-registry' && b === 'publish' ? true : null;
        default:
          return null;
      }
    },
  }),
];
