// The dashboard's Team view: the machines shipping their audit logs (who, last contact, the chain's status
// with its problem), the team's decisions per person and per agent, and the calls the policy asks about most
// (where it costs people time). Names and counts link to the decision list, filtered.

import { Fragment } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import {
  api, NO_FILTERS,
  type AskedCall, type ChainProblem, type Filters, type TeamAgent, type TeamClient, type TeamPerson, type VerdictCounts,
} from './api.ts';
import { ago, isStale } from './ago.ts';

/** The Team view reloads this often (its figures change with every shipped batch). */
const REFRESH_MS = 30_000;

export function TeamView(props: { onFilter: (f: Filters) => void }) {
  const [since, setSince] = useState('7d');
  const [clients, setClients] = useState<TeamClient[] | null>(null);
  const [people, setPeople] = useState<TeamPerson[] | null>(null);
  const [agents, setAgents] = useState<TeamAgent[] | null>(null);
  const [asked, setAsked] = useState<AskedCall[] | null>(null);
  const [error, setError] = useState('');
  const [now, setNow] = useState(Date.now());

  const load = useCallback(async () => {
    const q = `since=${encodeURIComponent(since)}`;
    try {
      const [c, p, a, t] = await Promise.all([
        api<{ clients: TeamClient[] }>('GET', '/v1/team/clients'),
        api<{ people: TeamPerson[] }>('GET', `/v1/team/people?${q}`),
        api<{ agents: TeamAgent[] }>('GET', `/v1/team/agents?${q}`),
        api<{ calls: AskedCall[] }>('GET', `/v1/team/top-asked?${q}&limit=20`),
      ]);
      setClients(c.clients);
      setPeople(p.people);
      setAgents(a.agents);
      setAsked(t.calls);
      setNow(Date.now());
      setError('');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }, [since]);
  useEffect(() => {
    void load();
    const t = setInterval(load, REFRESH_MS);
    return () => clearInterval(t);
  }, [load]);

  const filter = (f: Partial<Filters>) => props.onFilter({ ...NO_FILTERS, ...f });
  return (
    <div class="team" data-testid="team">
      <div class="team-bar">
        <label>
          Over the last{' '}
          <select value={since} onChange={(e) => setSince((e.target as HTMLSelectElement).value)} name="team-since">
            <option value="24h">day</option>
            <option value="7d">week</option>
            <option value="30d">month</option>
          </select>
        </label>
        <button type="button" class="link" onClick={() => void load()}>Refresh</button>
        {error && <p class="error" role="alert">{error}</p>}
      </div>
      <Machines clients={clients} now={now} filter={filter} />
      <div class="team-columns">
        <People people={people} now={now} filter={filter} />
        <Agents agents={agents} filter={filter} />
      </div>
      <TopAsked calls={asked} now={now} filter={filter} />
    </div>
  );
}

type FilterFn = (f: Partial<Filters>) => void;

function Counts(props: { c: VerdictCounts }) {
  const { allow, deny, ask } = props.c;
  if (allow + deny + ask === 0) return <span class="muted">—</span>;
  return (
    <span class="counts">
      <span class="n-ask" title="asked">{ask} ask</span> · <span class="n-deny" title="denied">{deny} deny</span> · <span class="n-allow" title="allowed">{allow} allow</span>
    </span>
  );
}

function LastContact(props: { iso: string | null; now: number }) {
  if (!props.iso) return <span class="muted">—</span>;
  const stale = isStale(props.iso, props.now);
  return (
    <span class={stale ? 'stale' : ''} title={new Date(props.iso).toLocaleString()}>
      {ago(props.iso, props.now)}
      {stale && <span class="badge warn" data-testid="stale">stale</span>}
    </span>
  );
}

function Machines(props: { clients: TeamClient[] | null; now: number; filter: FilterFn }) {
  const [open, setOpen] = useState<string | null>(null);
  const list = props.clients;
  return (
    <section class="card" aria-labelledby="team-machines">
      <h2 id="team-machines">Machines {list && <span class="count">{list.length}</span>}</h2>
      {list && list.length === 0 && <p class="muted">No machine ships its audit log here yet (<code>audit: remote:</code> in a user's policy).</p>}
      {list && list.length > 0 && (
        <div class="scroll">
          <table data-testid="machines">
            <thead>
              <tr>
                <th scope="col">Chain</th>
                <th scope="col">User</th>
                <th scope="col">Host</th>
                <th scope="col">OS user</th>
                <th scope="col">Last contact</th>
                <th scope="col" class="num">Records</th>
                <th scope="col">Last 24 h</th>
                <th scope="col">Last 7 days</th>
              </tr>
            </thead>
            <tbody>
              {list.map((c) => (
                <Fragment key={c.clientId}>
                  <tr data-testid="machine" data-id={c.clientId} data-status={c.status} class={c.status === 'broken' ? 'broken' : ''}>
                    <td>
                      {c.status === 'ok' ? (
                        <span class="badge ok" data-testid="chain">chain ok</span>
                      ) : (
                        <>
                          <span class="badge bad" data-testid="chain">chain broken</span>
                          <p class="problem" data-testid="problem">
                            {c.problem ?? 'no reason recorded'}
                            {c.problemAt && <span class="muted"> · {ago(c.problemAt, props.now)}</span>}
                          </p>
                          <button type="button" class="link" aria-expanded={open === c.clientId} onClick={() => setOpen(open === c.clientId ? null : c.clientId)}>
                            {open === c.clientId ? 'Hide problems' : 'All problems'}
                          </button>
                        </>
                      )}
                    </td>
                    <td><button type="button" class="link" onClick={() => props.filter({ principal: c.tokenName })}>{c.tokenName}</button></td>
                    <td><button type="button" class="link" title={`client ${c.clientId}`} onClick={() => props.filter({ client: c.clientId })}>{c.host ?? c.clientId}</button></td>
                    <td>{c.osUser ?? '—'}</td>
                    <td><LastContact iso={c.lastContact} now={props.now} /></td>
                    <td class="num">{c.headSeq}</td>
                    <td><Counts c={c.last24h} /></td>
                    <td><Counts c={c.last7d} /></td>
                  </tr>
                  {open === c.clientId && (
                    <tr class="problems-row">
                      <td colSpan={8}><Problems clientId={c.clientId} /></td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Problems(props: { clientId: string }) {
  const [problems, setProblems] = useState<ChainProblem[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    api<{ problems: ChainProblem[] }>('GET', `/v1/team/clients/${encodeURIComponent(props.clientId)}?limit=50`).then(
      (r) => setProblems(r.problems),
      (e) => setError(e instanceof Error ? e.message : String(e)),
    );
  }, [props.clientId]);
  if (error) return <p class="error">{error}</p>;
  if (!problems) return <p class="muted">Loading…</p>;
  if (problems.length === 0) return <p class="muted">No problem recorded.</p>;
  return (
    <ul class="problems" data-testid="problems">
      {problems.map((p) => (
        <li key={p.id}>
          <span class="muted">{new Date(p.at).toLocaleString()}</span> <b>{p.kind}</b>
          {p.seq !== null && <span class="muted"> at record {p.seq}</span>}: {p.message}
        </li>
      ))}
    </ul>
  );
}

function People(props: { people: TeamPerson[] | null; now: number; filter: FilterFn }) {
  const list = props.people;
  return (
    <section class="card" aria-labelledby="team-people">
      <h2 id="team-people">People</h2>
      {list && list.length === 0 && <p class="muted">No one yet.</p>}
      {list && list.length > 0 && (
        <div class="scroll">
          <table data-testid="people">
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col" class="num">Machines</th>
                <th scope="col" class="num">Decisions</th>
                <th scope="col" class="num">Asks</th>
                <th scope="col" class="num">Denies</th>
                <th scope="col">Last contact</th>
              </tr>
            </thead>
            <tbody>
              {list.map((p) => (
                <tr key={p.name} data-testid="person" data-name={p.name}>
                  <th scope="row"><button type="button" class="link" onClick={() => props.filter({ principal: p.name })}>{p.name}</button></th>
                  <td class="num">{p.machines}{p.broken > 0 && <span class="badge bad" title="machines with a broken chain">{p.broken} broken</span>}</td>
                  <td class="num">{p.decisions}</td>
                  <td class="num">{p.asks > 0 ? <button type="button" class="link" onClick={() => props.filter({ principal: p.name, verdict: 'ask' })}>{p.asks}</button> : 0}</td>
                  <td class="num">{p.denies > 0 ? <button type="button" class="link" onClick={() => props.filter({ principal: p.name, verdict: 'deny' })}>{p.denies}</button> : 0}</td>
                  <td><LastContact iso={p.lastContact ?? p.lastDecision} now={props.now} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Agents(props: { agents: TeamAgent[] | null; filter: FilterFn }) {
  const list = props.agents;
  return (
    <section class="card" aria-labelledby="team-agents">
      <h2 id="team-agents">Agents</h2>
      {list && list.length === 0 && <p class="muted">No decisions in this period.</p>}
      {list && list.length > 0 && (
        <div class="scroll">
          <table data-testid="agents">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col" class="num">Decisions</th>
                <th scope="col" class="num">Asks</th>
                <th scope="col" class="num">Denies</th>
                <th scope="col" class="num">Users</th>
              </tr>
            </thead>
            <tbody>
              {list.map((a) => (
                <tr key={a.agent ?? ''} data-testid="agent">
                  <th scope="row">
                    {a.agent === null ? <span class="muted">no agent named</span> : (
                      <button type="button" class="link" onClick={() => props.filter({ agent: a.agent ?? '' })}>{a.agent}</button>
                    )}
                  </th>
                  <td class="num">{a.decisions}</td>
                  <td class="num">{a.asks}</td>
                  <td class="num">{a.denies}</td>
                  <td class="num">{a.users}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function TopAsked(props: { calls: AskedCall[] | null; now: number; filter: FilterFn }) {
  const list = props.calls;
  return (
    <section class="card" aria-labelledby="team-asked">
      <h2 id="team-asked">Most asked calls <span class="muted">· where the policy costs people time</span></h2>
      {list && list.length === 0 && <p class="muted">No call was asked about in this period.</p>}
      {list && list.length > 0 && (
        <div class="scroll">
          <table data-testid="top-asked">
            <thead>
              <tr>
                <th scope="col" class="num">Asked</th>
                <th scope="col">Rule</th>
                <th scope="col">Call</th>
                <th scope="col" class="num">People</th>
                <th scope="col" class="num">Machines</th>
                <th scope="col">Last</th>
              </tr>
            </thead>
            <tbody>
              {list.map((c) => (
                <tr key={`${c.rule ?? ''}\u0000${c.summary}`} data-testid="asked">
                  <td class="num"><b>{c.count}</b></td>
                  <td><code>{c.rule ?? '—'}</code></td>
                  <td class="call">
                    <button type="button" class="link code" title="The decisions of this call"
                      onClick={() => props.filter({ verdict: 'ask', rule: c.rule ?? '', q: c.summary.replace(/…$/, '') })}>
                      {c.summary}
                    </button>
                  </td>
                  <td class="num">{c.users}</td>
                  <td class="num">{c.machines}</td>
                  <td>{ago(c.lastSeen, props.now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
