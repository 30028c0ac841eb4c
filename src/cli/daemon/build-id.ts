// The id of the build this code came from. scripts/build.mjs defines __ASIMOV_BUILD_ID__ in the bundle (the
// same id it writes on dist/cli.cjs's first line, which clients read), so a daemon knows which build it runs
// from its own code rather than from a file that a rebuild may have replaced since it started.

declare const __ASIMOV_BUILD_ID__: string | undefined;

/** The running bundle's build id; null when running from source (tests under tsx), which has none. */
export function runningBuildId(): string | null {
  return typeof __ASIMOV_BUILD_ID__ === 'string' ? __ASIMOV_BUILD_ID__ : null;
}
