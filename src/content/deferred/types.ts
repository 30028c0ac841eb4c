// What a file that runs code later will run: the shapes every deferred-execution extractor returns.
// Pure data, no policy knowledge: the policy layer classifies the command lines with the shell engine.

/** Kinds of file whose content runs later without anyone typing it (CI, hooks, lifecycle scripts, persistence). */
export type DeferredKind =
  | 'ci'               // .github/workflows/*, .gitlab-ci.yml, .circleci/config.yml, azure-pipelines.yml, bitbucket-pipelines.yml, Jenkinsfile, .buildkite/*
  | 'git-hook'         // .git/hooks/*
  | 'hook-manager'     // .husky/*, lefthook.yml, .pre-commit-config.yaml (local hooks), simple-git-hooks
  | 'editor-task'      // .vscode/tasks.json (runOn: folderOpen)
  | 'devcontainer'     // .devcontainer/devcontainer.json, .devcontainer.json
  | 'envrc'            // .envrc (direnv)
  | 'package-scripts'  // package.json lifecycle scripts
  | 'setup-py'         // setup.py (runs at install)
  | 'makefile'         // Makefile recipes
  | 'shell-init'       // ~/.bashrc, ~/.zshrc, ~/.profile, … (and /etc/profile.d)
  | 'crontab'          // crontab lines, /etc/cron.d/*, spool files
  | 'systemd-unit'     // ~/.config/systemd/user/*.service|*.timer, /etc/systemd/…
  | 'autostart'        // ~/.config/autostart/*.desktop
  | 'launchd'          // ~/Library/LaunchAgents/*.plist
  | 'path-program';    // ~/.local/bin/<name>, ~/bin/<name>: a program on the PATH (a fake `sudo`)

/** One shell line the file will run, and where in the file it is. */
export interface DeferredCommand {
  /** The command line as the shell will see it (CI expressions replaced by variables, see extractors). */
  line: string;
  /** Where it is in the file, for reasons: `jobs.build.steps[2].run`, `scripts.postinstall`, `line 3`. */
  where: string;
  /**
   * Set when the line is not a POSIX shell line (the shell engine should not read it as one): 'powershell',
   * 'cmd' (Windows batch), 'python', 'fish', … The `where` then also names it, e.g. `(powershell)`.
   */
  lang?: string;
}

/** A danger seen in the file's structure rather than in one command line. */
export interface DeferredSignal {
  kind:
    | 'secrets-to-network'  // a step hands the repository's secrets (toJSON(secrets), ${{ secrets.X }}) to a network tool
    | 'untrusted-input'     // issue/PR/discussion/comment text (${{ github.event.issue.title }}…) spliced into a command
    | 'pr-head-checkout'    // pull_request_target (or workflow_run) that checks out the PR's head and runs it
    | 'download-and-run';   // a step that fetches code and runs it, seen in structure (uses: a script URL)
  where: string;
  /** One short sentence for the reason, naming what was seen. */
  detail: string;
}

export interface DeferredContent {
  kind: DeferredKind;
  /** How a person names the file: "GitHub Actions workflow", "husky pre-commit hook", "package.json postinstall". */
  label: string;
  /** Every command line the file will run, in file order. */
  commands: DeferredCommand[];
  signals: DeferredSignal[];
  /** True when part of the file could not be parsed and lines were read as commands instead (fail towards looking). */
  partial: boolean;
  /**
   * For script kinds (hooks, PATH programs, …) whose shebang names an interpreter that is not a POSIX shell
   * ('python', 'node', 'perl', …): the language of the whole file. No shell commands are returned then (the
   * code is not shell); the policy side decides what an unreadable script is worth. 'fish' files still
   * return their lines, marked lang 'fish'.
   */
  interpreter?: string;
}
