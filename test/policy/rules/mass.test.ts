// Tests for rules/mass.ts: mass and production destruction, and the programs tool runners run.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { classify } from '../../../src/policy/classify.ts';
import { createRuleContext } from '../../../src/policy/context.ts';
import { recommended } from '../../../src/policy/rules/index.ts';
import { nameWords, rules } from '../../../src/policy/rules/mass.ts';
import { expectRule, expectNoRule, testRuleExamples, tierTable } from '../../helpers/rule-tester.ts';

testRuleExamples(rules);

tierTable('targets from a listing in the same line are hard_deny', [
  ["aws ec2 describe-instances --query 'Reservations[].Instances[].InstanceId' --output text | xargs aws ec2 terminate-instances --instance-ids", 'hard_deny'],
  ["aws iam list-users --output text | tr '\\t' '\\n' | while read u; do aws iam delete-user --user-name \"$u\"; done", 'hard_deny'],
  ['for r in $(aws ec2 describe-regions --output text); do aws ec2 terminate-instances --region $r --instance-ids i-1; done', 'hard_deny'],
  ["gcloud compute instances list --format='value(name)' | xargs gcloud compute instances delete --quiet", 'hard_deny'],
  ['helm list -A -q | xargs helm uninstall', 'hard_deny'],
  ["sudo sh -c 'aws s3api list-buckets --output text | xargs -n1 aws s3 rb --force'", 'hard_deny'],
  // benign: a listing alone, a loop of reads, one named deletion
  ["aws ec2 describe-instances | jq -r '.Reservations[].Instances[].InstanceId'", 'allow'],
  ['for r in us-east-1 us-west-2; do aws ec2 describe-instances --region $r; done', 'allow'],
  ['aws ec2 terminate-instances --instance-ids i-123', 'soft_deny'],
]);

tierTable('tool runners: the inner command is judged as if typed', [
  ['npx cdk destroy --all --force', 'hard_deny'],
  ['npm exec -- cdk destroy --all', 'hard_deny'],
  ['npx --yes aws-cdk@2 destroy --all', 'hard_deny'],
  ['uvx --from aws-cdk cdk destroy --all', 'hard_deny'],
  ["bash -c 'npx cdk destroy --all --force'", 'hard_deny'],
  ['npx prisma migrate reset --force', 'soft_deny'],
  ['npx tsc -p tsconfig.json', 'soft_deny'],
  ['pnpm exec jest', 'allow'],
  ['docker compose exec web npm test', 'allow'],
  ["docker compose exec db psql -c 'DROP DATABASE app'", 'hard_deny'],
]);

tierTable('production by name, wherever it is named', [
  ['kubectl --context prod-cluster delete deployment api', 'hard_deny'],
  ['kubectl delete pod api-1 -n=prod', 'hard_deny'],
  ['kubectl config use-context prod && kubectl delete deploy api', 'hard_deny'],
  ['terraform workspace select prod && terraform destroy', 'hard_deny'],
  ['cd infra/production && terraform destroy', 'hard_deny'],
  ['TF_WORKSPACE=production terraform destroy', 'hard_deny'],
  ['DATABASE_URL=$PROD_DATABASE_URL npx prisma migrate reset --force', 'hard_deny'],
  ['export DATABASE_URL=$PRODUCTION_DB; npx prisma migrate reset --force', 'hard_deny'],
  ['AWS_PROFILE=prod aws rds delete-db-instance --db-instance-identifier db1', 'hard_deny'],
  ['gcloud --project acme-prod sql instances delete main', 'hard_deny'],
  ["kubectl exec -n production db-0 -- psql -c 'DROP TABLE users'", 'hard_deny'],
  ['npx serverless remove --stage prod', 'hard_deny'],
  // benign: reading production, changing (not destroying) it, names that only contain the letters
  ['kubectl logs -n production api-0', 'allow'],
  ['kubectl apply -f k8s/prod.yaml', 'soft_deny'],
  ['kubectl delete pod products-api-1 -n dev', 'soft_deny'],
  ['terraform workspace select dev && terraform destroy -target=module.test', 'soft_deny'],
  ['terraform destroy', 'soft_deny'],
  ['helm uninstall liveness-probe-demo -n dev', 'soft_deny'],
  ['rm -rf build/prod', 'allow'],
]);

describe('nameWords', () => {
  test('splits at separators and camelCase humps, keeps whole pieces for globs', () => {
    assert.deepEqual(nameWords('ProdStack').sort(), ['prod', 'prodstack', 'stack']);
    assert.ok(nameWords('$PROD_DATABASE_URL').includes('prod'));
    assert.ok(nameWords('prod-db.internal').includes('prod-db'));
    assert.ok(!nameWords('products-api').includes('prod'));
    assert.ok(!nameWords('liveness').includes('live'));
  });
});

describe('policy protectedNames adds globs to the built-in words', () => {
  const run = (line: string, names?: string[]) => {
    const ctx = createRuleContext({ cwd: '/home/dev/project', projectRoot: '/home/dev/project', home: '/home/dev', ...(names ? { protectedNames: names } : {}) });
    return classify({ tool: 'shell', input: { command: line }, cwd: ctx.cwd }, { rules: recommended }, ctx);
  };
  test('a custom name is protected, the defaults still are, and it tightens only', () => {
    assert.equal(run('kubectl delete pod api -n customer-a').tier, 'soft_deny');
    assert.equal(run('kubectl delete pod api -n customer-a', ['customer-*']).tier, 'hard_deny');
    assert.equal(run('kubectl delete pod api -n production', ['customer-*']).tier, 'hard_deny');
    assert.equal(run('kubectl get pods -n customer-a', ['customer-*']).tier, 'allow');
  });
  test('the rule ids', () => {
    expectRule('kubectl --namespace production delete pod api-1', 'infra.protected-destroy');
    expectRule('kubectl get pods -o name | xargs kubectl delete', 'infra.mass-destroy');
    expectNoRule('kubectl delete pod my-pod -n dev', 'infra.protected-destroy');
  });
});
