// Read-only uses of the forge, Android and system CLIs (read-only-clis.ts, merged into dev.read-only): the
// looking subcommands are allowed, and every acting form next to them stays with the rule that owns it or
// with a person.
import { describe, test } from 'node:test';
import { rules } from '../../../src/policy/rules/dev.ts';
import { expectNoRule, expectRule, testRuleExamples, tierTable } from '../../helpers/rule-tester.ts';

// The checks are dev.read-only's (merged into its table): its examples run here with the new cases.
testRuleExamples(rules.filter((r) => r.id === 'dev.read-only'));

tierTable('the forge: reading pull requests, runs, issues and the API', [
  ['gh pr checks 12', 'allow'],
  ['gh pr view 12 --json state,title', 'allow'],
  ['gh pr diff 12', 'allow'],
  ['gh pr list --state open', 'allow'],
  ['gh -R org/app pr status', 'allow'],
  ['gh run view 123 --log', 'allow'],
  ['gh run list --workflow ci --limit 1 --json databaseId,status', 'allow'],
  ['gh run watch 123 --exit-status', 'allow'],
  ['gh workflow view ci.yml', 'allow'],
  ['gh issue view 5 --comments', 'allow'],
  ['gh repo view org/app --json description', 'allow'],
  ['gh release list', 'allow'],
  ['gh search code "useEffect" --repo org/app', 'allow'],
  ['gh auth status', 'allow'],
  ['gh api repos/org/app/pulls', 'allow'],
  ["gh api repos/org/app/releases --jq '.[0].tag_name'", 'allow'],
  ['gh api -X GET search/issues -f q=repo:org/app', 'allow'],
  ['glab mr view 3', 'allow'],
  ['glab ci status', 'allow'],
]);

tierTable('the forge: acting forms are not read-only', [
  // Not reads: allowed as proposals in the project's own repository (publish.gh-propose), whatever the words.
  ['gh pr create --title list --body x', 'allow'],
  ['gh issue comment 5 --body show', 'allow'],
  ['gh pr create -R other/repo --title list', 'unknown'],
  ['gh pr merge 12 --squash', 'soft_deny'],
  ['gh pr -X view merge', 'soft_deny'],
  ['gh run rerun 123', 'unknown'],
  ['gh workflow run deploy.yml', 'unknown'],
  ['gh api -X POST repos/org/app/issues -f title=x', 'unknown'],
  ['gh api repos/org/app/issues -f title=view', 'unknown'],
  ['gh api -XPOST repos/org/app/issues', 'unknown'],
  ['gh api --method=PATCH repos/org/app', 'unknown'],
  ['gh api --input body.json repos/org/app/issues', 'unknown'],
  ["gh api graphql -f query='mutation { x }'", 'unknown'],
  ['gh api -X DELETE repos/org/app/hooks/1', 'soft_deny'],
  ['gh api https://evil.example/x', 'unknown'],
  ['gh auth status --show-token', 'soft_deny'],
  ['gh auth token', 'soft_deny'],
  ['gh release create v1', 'soft_deny'],
  ['gh secret set X --body y', 'soft_deny'],
  ['glab api projects/1 -X DELETE', 'soft_deny'],
]);

tierTable('adb: the device under development', [
  ['adb devices', 'allow'],
  ['adb shell getprop ro.build.version.sdk', 'allow'],
  ['adb shell "getprop ro.product.model"', 'allow'],
  ['adb -s emulator-5554 shell dumpsys battery', 'allow'],
  ['adb shell pm list packages', 'allow'],
  ['adb logcat -d -s MyTag:D', 'allow'],
  ['~/Library/Android/sdk/platform-tools/adb logcat -d | tail -50', 'allow'],
  ['adb pull /sdcard/shot.png /tmp/shot.png', 'allow'],
  ['adb shell rm -rf /sdcard', 'unknown'],
  ['adb shell "getprop x; rm -rf /sdcard"', 'unknown'],
  ['adb shell "pkill -f com.android.launcher && sleep 2"', 'unknown'],
  ['adb shell getprop $(cat ~/.ssh/id_rsa)', 'soft_deny'],
  ['adb shell pm uninstall com.example', 'unknown'],
  ['adb logcat -c', 'unknown'],
  ['adb install app.apk', 'unknown'],
  ['adb pull /sdcard/x.sh .git/hooks/pre-commit', 'unknown'],
  ['adb push id_rsa /sdcard/', 'unknown'],
]);

tierTable('macOS and Linux system inspection', [
  ['sw_vers', 'allow'],
  ['system_profiler SPHardwareDataType', 'allow'],
  ["mdfind \"kMDItemFSName == 'Rotato*'\" -onlyin /Applications", 'allow'],
  ['defaults read /Applications/App.app/Contents/Info.plist', 'allow'],
  ['plutil -p Info.plist', 'allow'],
  ['plutil -lint Info.plist', 'allow'],
  ['diskutil list', 'allow'],
  ['/usr/libexec/java_home -V', 'allow'],
  ['export JAVA_HOME=$(/usr/libexec/java_home -v 17) && ./gradlew assembleDebug', 'allow'],
  ['xcrun simctl list devices', 'allow'],
  ['xcrun --show-sdk-path', 'allow'],
  ['pg_lsclusters', 'allow'],
  ['where git', 'allow'],
  ['defaults write com.apple.finder AppleShowAllFiles YES', 'unknown'],
  ['defaults delete com.example', 'unknown'],
  ['plutil -convert json Info.plist', 'unknown'],
  ['plutil -remove CFBundleVersion Info.plist', 'unknown'],
  ['diskutil eraseDisk APFS x disk2', 'hard_deny'],
  ['/usr/libexec/java_home --exec rm -rf build', 'unknown'],
  ['xcrun simctl erase all', 'unknown'],
  ['xcrun rm -rf build', 'unknown'],
]);

describe('the forge reads are dev.read-only, not the loose infra test', () => {
  test('gh pr view is dev.read-only', () => expectRule('gh pr view 12', 'dev.read-only'));
  test('a read verb as a value does not make gh read-only', () => expectNoRule('gh pr create --title view', 'infra.readonly'));
});
