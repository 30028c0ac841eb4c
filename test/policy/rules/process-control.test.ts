// Stopping processes, tiered: the agent's own (a pid, a job, a dev server's port, a precise pattern) is
// allowed; a selection that reaches the session, the system, the agent itself or a whole runtime is soft;
// killing everything stays hard (sys.kill-all).
import { rules } from '../../../src/policy/rules/process-control.ts';
import { testRuleExamples, tierTable } from '../../helpers/rule-tester.ts';

testRuleExamples(rules);

tierTable('the agent stops its own processes', [
  ['pkill -f "next dev" 2>/dev/null || true', 'allow'],
  ['pkill -f "uvicorn ies_backend" 2>/dev/null; sleep 1', 'allow'],
  ["pkill -f 'node.*next' || true", 'allow'],
  ['kill -9 2428 2>/dev/null; kill -9 3114 2>/dev/null; echo "Build killed"', 'allow'],
  ['lsof -ti:5173,5174,5175 | xargs kill -9 2>/dev/null || true', 'allow'],
  ["bash -lc 'lsof -ti tcp:5173 | xargs -r kill; npm run dev'", 'allow'],
  ['npm run dev 2>&1 & sleep 8; kill %1 2>/dev/null', 'allow'],
  ['kill -0 12345', 'allow'],
]);

tierTable('wider selections', [
  ['pkill -9 -f "node" 2>/dev/null', 'soft_deny'],
  ['killall node', 'soft_deny'],
  ['pkill -f "Code Helper"', 'soft_deny'],
  ['pkill -f python', 'soft_deny'],
  ['pkill -U 0', 'soft_deny'],
  ['killall -u bob', 'soft_deny'],
  ['kill $(lsof -ti:80)', 'soft_deny'],
  ['kill $(lsof -ti)', 'unknown'],
  ['lsof -i | xargs kill', 'unknown'],
  ['pkill -fv vite', 'hard_deny'],
  ['killall5 -9', 'hard_deny'],
]);
