// The infra rules: live infrastructure changes need a person; destroying it unconfirmed is hard_deny;
// looking at it is allowed.

import { describe, test } from 'node:test';
import { expectNoRule, expectRule, testRuleExamples, tierTable } from '../../helpers/rule-tester.ts';
import { rules } from '../../../src/policy/rules/infra.ts';

testRuleExamples(rules);

tierTable('unconfirmed, irreversible infrastructure loss is hard_deny', [
  ['terraform destroy -auto-approve', 'hard_deny'],
  ['terraform destroy --auto-approve', 'hard_deny'],
  ['terraform -chdir=envs/prod destroy -auto-approve', 'hard_deny'],
  ['tofu apply -destroy -auto-approve', 'hard_deny'],
  ['terragrunt run-all destroy -auto-approve', 'hard_deny'],
  ['pulumi destroy --yes', 'hard_deny'],
  ['pulumi destroy -y -s prod', 'hard_deny'],
  ['kubectl delete namespace production', 'hard_deny'],
  ['kubectl delete ns staging', 'hard_deny'],
  ['kubectl delete pods --all -n prod', 'hard_deny'],
  ['kubectl delete deploy -A --all', 'hard_deny'],
  ['kubectl delete nodes node-1', 'hard_deny'],
  ['kubectl delete crd widgets.example.com', 'hard_deny'],
  ['aws s3 rb s3://data --force', 'hard_deny'],
  ['aws s3 rm s3://data/ --recursive', 'hard_deny'],
  ['aws rds delete-db-instance --db-instance-identifier db --skip-final-snapshot', 'hard_deny'],
  ['aws cloudtrail delete-trail --name main', 'hard_deny'],
  ['gcloud projects delete my-project --quiet', 'hard_deny'],
  ['gsutil -m rm -r gs://my-bucket', 'hard_deny'],
  ['az group delete -n rg --yes --no-wait', 'hard_deny'],
  ['docker run --rm -it -v /:/mnt alpine chroot /mnt sh', 'hard_deny'],
]);

tierTable('changing live infrastructure is soft_deny', [
  ['terraform apply', 'soft_deny'],
  ['terraform apply -auto-approve', 'soft_deny'],
  ['terraform apply tfplan', 'soft_deny'],
  ['terraform destroy', 'soft_deny'],
  ['terraform state rm module.x', 'soft_deny'],
  ['pulumi up', 'soft_deny'],
  ['kubectl apply -f k8s/', 'soft_deny'],
  ['kubectl delete pod web-123', 'soft_deny'],
  ['kubectl edit deploy web', 'soft_deny'],
  ['kubectl scale deploy/web --replicas=3', 'soft_deny'],
  ['helm upgrade --install web ./chart', 'soft_deny'],
  // A destructive command in a namespace named as production is infra.protected-destroy (rules/mass.ts).
  ['helm uninstall web -n prod', 'hard_deny'],
  ['aws ec2 terminate-instances --instance-ids i-123', 'soft_deny'],
  ['aws s3 rm s3://bucket/file.txt', 'soft_deny'],
  ['aws s3 sync ./site s3://bucket --delete', 'soft_deny'],
  ['aws dynamodb delete-table --table-name t', 'soft_deny'],
  ['aws iam create-access-key --user-name x', 'soft_deny'],
  ['gcloud compute instances delete vm --zone us-central1-a', 'soft_deny'],
  ['gcloud run deploy svc --image x', 'soft_deny'],
  ['az vm delete -g rg -n vm --yes', 'soft_deny'],
  ['docker system prune -a -f', 'soft_deny'],
  ['docker volume rm data', 'soft_deny'],
  ['docker rm -f $(docker ps -aq)', 'soft_deny'],
  ['docker compose down --volumes', 'soft_deny'],
  ['docker run --privileged alpine', 'soft_deny'],
  ['vercel --prod', 'soft_deny'],
  ['fly deploy', 'soft_deny'],
  ['wrangler r2 bucket delete my-bucket', 'soft_deny'],
  ['rclone purge remote:old', 'soft_deny'],
]);

tierTable('inspecting infrastructure stays allow', [
  ['terraform plan -out=tfplan', 'allow'],
  ['terraform fmt -check', 'allow'],
  ['terraform validate', 'allow'],
  ['terraform show -json tfplan', 'allow'],
  ['pulumi preview --diff', 'allow'],
  ['kubectl get pods -n prod -o wide', 'allow'],
  ['kubectl describe deploy web', 'allow'],
  ['kubectl logs deploy/web --tail=100', 'allow'],
  ['kubectl --context staging get svc', 'allow'],
  ['helm list -A', 'allow'],
  ['helm template web ./chart -f values.yaml', 'allow'],
  ['aws s3 ls s3://bucket/prefix/', 'allow'],
  ['aws ec2 describe-instances --filters Name=tag:env,Values=prod', 'allow'],
  ['aws --region eu-west-1 ecs list-services --cluster c', 'allow'],
  ['aws cloudformation describe-stacks', 'allow'],
  ['gcloud container clusters list', 'allow'],
  ['gcloud config set project my-project', 'allow'],
  ['az account show', 'allow'],
  ['az aks list -o table', 'allow'],
  ['docker ps', 'allow'],
  ['docker images', 'allow'],
  ['docker logs -f web', 'allow'],
  ['docker build -t app:dev .', 'allow'],
  ['docker compose up -d', 'allow'],
  ['docker compose logs -f api', 'allow'],
  ['docker rm old-container', 'allow'],
]);

describe('secret-bearing reads are not allowed by the infra rules', () => {
  test('secret readers get no allow from infra.readonly', () => {
    for (const c of ['aws secretsmanager get-secret-value --secret-id x', 'aws ssm get-parameter --name /x --with-decryption', 'aws sts assume-role --role-arn x --role-session-name y', 'gcloud secrets versions access latest --secret x', 'gcloud auth print-access-token', 'az keyvault secret show --vault-name v -n s', 'vault kv get secret/x', 'op item get x', 'doppler secrets']) {
      expectNoRule(c, 'infra.readonly');
    }
  });
  test('global options do not hide the verb', () => {
    expectRule('aws --profile prod --region us-east-1 ec2 terminate-instances --instance-ids i-1', 'infra.aws');
    expectRule('kubectl -n prod --context prod delete pod x', 'infra.kubectl');
    expectRule('gcloud --project p compute instances delete vm', 'infra.gcloud');
    expectRule('docker --context remote system prune -f', 'infra.docker');
    expectRule('helm --kube-context prod uninstall web', 'infra.helm');
  });
  test('docker exec and kubectl exec: the inner command is judged as well', () => {
    expectRule('kubectl exec -it web -- rm -rf /', 'fs.rm-catastrophic');
    expectRule('docker exec db psql -c "DROP DATABASE app"', 'db.drop');
  });
});

tierTable('read-only verbs of more infrastructure CLIs are allowed', [
  ['aws ssm get-parameter --name /app/config', 'allow'],
  ['aws ssm get-parameters-by-path --path /app', 'allow'],
  ['aws ssm get-parameter --name /app/db-password --with-decryption', 'soft_deny'],
  ['az storage blob url -c assets -n logo.png', 'allow'],
  ['az storage blob download-batch -d ./assets -s assets', 'allow'],
  ['az storage blob download -c c -n x -f ~/.bashrc', 'hard_deny'],
  ['aws s3 cp s3://bucket/report.csv ./data/', 'allow'],
  ['aws s3 cp s3://bucket/key ~/.ssh/authorized_keys', 'hard_deny'],
  ['gsutil cp gs://bucket/x /etc/cron.d/x', 'hard_deny'],
  ['flipt evaluate --flag new-ui --entity user-1', 'allow'],
  ['promtool check rules rules.yml', 'allow'],
  ['promtool query instant http://localhost:9090 up', 'allow'],
  ['newrelic query "SELECT count(*) FROM Transaction"', 'allow'],
  ['nats sub "orders.>"', 'allow'],
  ['gh repo clone owner/repo', 'allow'],
  ['glab repo clone group/project', 'allow'],
  ['circleci local execute', 'allow'],
  ['java -jar jenkins-cli.jar -s http://jenkins.local/ list-jobs', 'allow'],
  ['java -jar jenkins-cli.jar -s http://jenkins.local/ who-am-i', 'allow'],
  ['java -jar jenkins-cli.jar -s http://jenkins.local/ get-credentials-as-xml system::system::jenkins', 'unknown'],
  ['java -jar jenkins-cli.jar -s http://jenkins.local/ build deploy-prod', 'unknown'],
  ['nats pub orders.new "{}"', 'unknown'],
]);
