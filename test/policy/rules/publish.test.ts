// The publish rules: releases to package registries, image registries and forges are never silent.

import { describe, test } from 'node:test';
import { expectNoRule, expectRule, testRuleExamples, tierTable } from '../../helpers/rule-tester.ts';
import { rules } from '../../../src/policy/rules/publish.ts';

testRuleExamples(rules);

tierTable('removing what others depend on is hard_deny', [
  ['npm unpublish my-pkg --force', 'hard_deny'],
  ['pnpm unpublish my-pkg@1.0.0', 'hard_deny'],
  ['gem yank x -v 1.0.0', 'hard_deny'],
  ['vsce unpublish pub.ext', 'hard_deny'],
  ['gh repo delete org/app --yes', 'hard_deny'],
]);

tierTable('publishing is soft_deny: sometimes the task, never silent', [
  ['npm publish', 'soft_deny'],
  ['npm --registry https://registry.npmjs.org publish', 'soft_deny'],
  ['npm publish --tag next --otp 123456', 'soft_deny'],
  ['pnpm publish --no-git-checks', 'soft_deny'],
  ['yarn publish --new-version 1.2.3', 'soft_deny'],
  ['cargo publish', 'soft_deny'],
  ['twine upload --repository pypi dist/*', 'soft_deny'],
  ['python3.12 -m twine upload dist/*', 'soft_deny'],
  ['poetry publish', 'soft_deny'],
  ['gem push x.gem', 'soft_deny'],
  ['docker push registry.example.com/app:1.0', 'soft_deny'],
  ['docker buildx build --platform linux/amd64 --push -t x .', 'soft_deny'],
  ['gh release create v2.0.0 dist/*', 'soft_deny'],
  ['gh pr merge --squash --delete-branch', 'soft_deny'],
  ['vsce publish patch', 'soft_deny'],
  ['mvn -B deploy', 'soft_deny'],
  ['./gradlew :lib:publish', 'soft_deny'],
]);

describe('building, packing and dry runs are not publishing', () => {
  test('dry runs and local packaging do not trip the rules', () => {
    for (const c of ['npm publish --dry-run', 'npm pack', 'cargo publish --dry-run', 'cargo package', 'poetry build', 'docker build .', 'vsce package', 'mvn package', './gradlew publishToMavenLocal', 'gh release view v1']) {
      for (const r of rules) expectNoRule(c, r.id);
    }
  });
  test('publishing words inside data do not count', () => {
    expectNoRule('git commit -m "npm publish"', 'publish.npm');
    expectNoRule('echo docker push x', 'publish.docker-push');
    expectNoRule('npm run publish', 'publish.npm');
  });
  test('wrapped publishes are still publishes', () => {
    expectRule('bash -c "npm publish"', 'publish.npm');
    expectRule('env NODE_AUTH_TOKEN=x npm publish', 'publish.npm');
    expectRule('cd pkg && npm publish', 'publish.npm');
  });
});
