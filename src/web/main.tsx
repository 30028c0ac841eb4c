// The asimov dashboard: sign in with a token, then the live feed of decisions from every process writing the
// audit log (server-sent events), filters, one decision's detail, the pending approvals with approve and
// deny, the audit chain's status and charts. Everything it shows comes from the API (server/routes/).

import { render } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './app.css';
import {
  api, ApiError, filterQuery, matches, NO_FILTERS, TIERS, VERDICTS,
  type Approval, type DecisionDetail, type DecisionItem, type Filters, type Session, type Stats, type VerifyStatus,
} from './api.ts';
import { OverTime, TopBars, VERDICT_COLOURS } from './charts.tsx';
import { TeamView } from './team.tsx';

/** The dashboard's views, one per location hash: the decisions (no hash) and the team (#team). */
type View = 'decisions' | 'team';
const viewOf = (hash: string): View => (hash === '#team' ? 'team' : 'decisions');

/** Decisions kept in the feed at most (the live ones push the oldest out). */
const FEED_MAX = 500;
const PAGE = 50;

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function time(iso: string): string {
  const d = new Date(iso);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString() : d.toLocaleString();
}

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    api<Session>('GET', '/v1/session').then(setSession, (e) => setError(message(e)));
  }, []);
  if (error) return <p class="error">{error}</p>;
  if (!session) return <p class="boot">Loading…</p>;
  if (!session.signedIn) return <SignIn onSignedIn={setSession} />;
  return <Dashboard session={session} onSignedOut={() => setSession({ signedIn: false, name: null, scopes: [] })} />;
}

function SignIn(props: { onSignedIn: (s: Session) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    setBusy(true);
    setError('');
    try {
      props.onSignedIn(await api<Session>('POST', '/v1/session', { token: token.trim() }));
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? 'That token is unknown or revoked.' : message(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>asimov</h1>
      <form onSubmit={submit} data-testid="signin">
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="off" placeholder="asv_…" value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)} required />
        <button type="submit" disabled={busy}>Sign in</button>
        {error && <p class="error" role="alert">{error}</p>}
        <p class="muted">Create one with <code>asimov serve token create --name me --scopes read,approve</code>.</p>
      </form>
    </main>
  );
}

function Dashboard(props: { session: Session; onSignedOut: () => void }) {
  const [view, setView] = useState<View>(viewOf(location.hash));
  useEffect(() => {
    const onHash = () => setView(viewOf(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const show = (v: View) => {
    // The hash keeps the view across a reload and in the browser's history.
    if (v === 'team') location.hash = 'team';
    else history.pushState(null, '', location.pathname + location.search);
    setView(v);
  };
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  const [feed, setFeed] = useState<DecisionItem[]>([]);
  const [older, setOlder] = useState<string | null>(null);
  const [feedError, setFeedError] = useState('');
  const [live, setLive] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const [stats, setStats] = useState<Stats | null>(null);
  const [since, setSince] = useState('24h');
  const [verify, setVerify] = useState<VerifyStatus | null>(null);
  const [approvals, setApprovals] = useState<Approval[] | null>(null);
  const [approvalsNote, setApprovalsNote] = useState('');
  const statsDue = useRef(false);

  const load = useCallback(async (f: Filters) => {
    try {
      const page = await api<{ decisions: DecisionItem[]; nextBefore: string | null }>('GET', `/v1/decisions${filterQuery(f, { limit: String(PAGE) })}`);
      if (filtersRef.current !== f) return; // the filters changed while this page was on its way
      setFeed(page.decisions);
      setOlder(page.nextBefore);
      setFeedError('');
    } catch (e) {
      setFeedError(message(e));
    }
  }, []);

  // The filters narrow the list at once (the server's query), a moment after the last keystroke.
  useEffect(() => {
    const t = setTimeout(() => void load(filters), 200);
    return () => clearTimeout(t);
  }, [filters]);

  const loadOlder = async () => {
    if (!older) return;
    try {
      const page = await api<{ decisions: DecisionItem[]; nextBefore: string | null }>('GET', `/v1/decisions${filterQuery(filters, { limit: String(PAGE), before: older })}`);
      setFeed((cur) => [...cur, ...page.decisions.filter((d) => !cur.some((c) => c.decisionId === d.decisionId))]);
      setOlder(page.nextBefore);
    } catch (e) {
      setFeedError(message(e));
    }
  };

  const loadStats = useCallback(async () => {
    try {
      setStats(await api<Stats>('GET', `/v1/stats?since=${encodeURIComponent(since)}`));
    } catch {
      /* the charts keep their last data */
    }
  }, [since]);
  useEffect(() => {
    void loadStats();
    const t = setInterval(() => {
      if (statsDue.current) {
        // New decisions came in: the charts and the chain's line count are behind.
        statsDue.current = false;
        void loadStats();
        void loadVerify();
      }
    }, 5000);
    return () => clearInterval(t);
  }, [loadStats]);

  const loadVerify = async () => {
    try {
      setVerify(await api<VerifyStatus>('GET', '/v1/audit/verify'));
    } catch (e) {
      setVerify({ path: null, exists: false, ok: false, lines: 0, error: message(e) });
    }
  };
  useEffect(() => {
    void loadVerify();
    const t = setInterval(loadVerify, 30_000);
    return () => clearInterval(t);
  }, []);

  const loadApprovals = async () => {
    try {
      setApprovals((await api<{ approvals: Approval[] }>('GET', '/v1/approvals?status=pending')).approvals);
      setApprovalsNote('');
    } catch (e) {
      setApprovals(null);
      setApprovalsNote(e instanceof ApiError && e.status === 404 ? 'This server does not take approvals.' : message(e));
    }
  };
  useEffect(() => void loadApprovals(), []);

  // The live feed: new decisions on top (when they pass the filters), approvals as they change.
  useEffect(() => {
    const es = new EventSource('/v1/events');
    es.onopen = () => setLive(true);
    es.onerror = () => setLive(false);
    es.addEventListener('decision', (ev) => {
      const d = JSON.parse((ev as MessageEvent<string>).data) as DecisionItem;
      statsDue.current = true;
      if (!matches(d, filtersRef.current)) return;
      setFeed((cur) => (cur.some((c) => c.decisionId === d.decisionId) ? cur : [d, ...cur].slice(0, FEED_MAX)));
    });
    es.addEventListener('approval', (ev) => {
      const a = JSON.parse((ev as MessageEvent<string>).data) as Approval;
      setApprovals((cur) => {
        const rest = (cur ?? []).filter((x) => x.id !== a.id);
        return a.status === 'pending' ? [a, ...rest] : rest;
      });
    });
    return () => es.close();
  }, []);

  const signOut = async () => {
    await api('DELETE', '/v1/session').catch(() => {});
    props.onSignedOut();
  };

  const canApprove = props.session.scopes.includes('approve');
  return (
    <div class="dash">
      <header>
        <h1>asimov</h1>
        <nav class="tabs" aria-label="Views">
          <button type="button" aria-current={view === 'decisions' ? 'page' : undefined} onClick={() => show('decisions')}>Decisions</button>
          <button type="button" aria-current={view === 'team' ? 'page' : undefined} onClick={() => show('team')} data-testid="tab-team">Team</button>
        </nav>
        <AuditBadge status={verify} />
        <span class={`live ${live ? 'on' : ''}`} data-testid="live">{live ? 'live' : 'connecting…'}</span>
        <span class="who">{props.session.name}</span>
        <button class="link" onClick={signOut}>Sign out</button>
      </header>
      {view === 'team' && <TeamView onFilter={(f) => { setFilters(f); show('decisions'); }} />}
      {view === 'decisions' && <FilterBar filters={filters} onChange={setFilters} />}
      {view === 'decisions' && <div class="columns">
        <section class="feed" aria-label="Decisions">
          <h2>Decisions</h2>
          {feedError && <p class="error">{feedError}</p>}
          <ul data-testid="feed">
            {feed.map((d) => (
              <li key={d.decisionId} class={`row v-${d.verdict}`} data-testid="decision" data-id={d.decisionId}
                onClick={() => setOpen(d.decisionId)} tabIndex={0} onKeyDown={(e) => e.key === 'Enter' && setOpen(d.decisionId)}>
                <span class={`verdict v-${d.verdict}`}>{d.verdict}</span>
                <span class="when">{time(d.ts)}</span>
                <span class="tier">{d.tier}</span>
                <span class="rule">{d.rule ?? '—'}</span>
                <span class="agent">{d.agent ?? ''}</span>
                <code class="summary">{d.summary}</code>
              </li>
            ))}
          </ul>
          {feed.length === 0 && !feedError && <p class="muted" data-testid="feed-empty">No decisions{filters === NO_FILTERS ? ' yet' : ' match these filters'}.</p>}
          {older && <button onClick={loadOlder}>Older</button>}
        </section>
        <aside class="side">
          <Approvals approvals={approvals} note={approvalsNote} canAnswer={canApprove} onChanged={loadApprovals} />
          <section class="charts" aria-label="Charts">
            <h2>
              Over the last{' '}
              <select value={since} onChange={(e) => setSince((e.target as HTMLSelectElement).value)} aria-label="Period">
                <option value="1h">hour</option>
                <option value="24h">day</option>
                <option value="7d">week</option>
                <option value="30d">month</option>
              </select>
              {stats && <span class="muted"> · {stats.total} decisions</span>}
            </h2>
            {stats && <OverTime stats={stats} />}
            <h3>Top rules</h3>
            {stats && <TopBars counts={stats.topRules} colour="#4a6fa5" testid="chart-top-rules" empty="No rule matched." />}
            <h3>Most asked calls</h3>
            {stats && <TopBars counts={stats.topAsked} colour={VERDICT_COLOURS.ask} testid="chart-top-asked" empty="Nothing was asked." />}
          </section>
        </aside>
      </div>}
      {open && <Detail id={open} onClose={() => setOpen(null)} />}
    </div>
  );
}

function AuditBadge(props: { status: VerifyStatus | null }) {
  const s = props.status;
  if (!s) return <span class="badge">audit …</span>;
  const [cls, text, title] =
    s.error ? ['bad', 'audit unreadable', s.error]
    : s.path === null ? ['warn', 'audit off', 'ASIMOV_AUDIT_LOG=off: nothing is recorded']
    : !s.exists ? ['ok', 'audit empty', `${s.path} does not exist yet`]
    : s.ok ? ['ok', `audit intact · ${s.lines} lines`, s.path]
    : ['bad', `audit broken at line ${s.firstBroken?.line}`, s.firstBroken?.message ?? ''];
  return <span class={`badge ${cls}`} title={title} data-testid="audit-status">{text}</span>;
}

function FilterBar(props: { filters: Filters; onChange: (f: Filters) => void }) {
  const f = props.filters;
  const set = (k: keyof Filters) => (e: Event) => props.onChange({ ...f, [k]: (e.target as HTMLInputElement | HTMLSelectElement).value });
  const any = Object.values(f).some((v) => v !== '');
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()} data-testid="filters">
      <select value={f.verdict} onChange={set('verdict')} aria-label="Verdict" name="verdict">
        <option value="">any verdict</option>
        {VERDICTS.map((v) => <option value={v}>{v}</option>)}
      </select>
      <select value={f.tier} onChange={set('tier')} aria-label="Tier" name="tier">
        <option value="">any tier</option>
        {TIERS.map((t) => <option value={t}>{t}</option>)}
      </select>
      <input placeholder="rule" value={f.rule} onInput={set('rule')} aria-label="Rule" name="rule" />
      <input placeholder="agent" value={f.agent} onInput={set('agent')} aria-label="Agent" name="agent" />
      <input placeholder="session" value={f.session} onInput={set('session')} aria-label="Session" name="session" />
      <input placeholder="user" value={f.principal} onInput={set('principal')} aria-label="User (token name)" name="principal" />
      {f.client !== '' && <input placeholder="machine" value={f.client} onInput={set('client')} aria-label="Machine (client id)" name="client" />}
      <input placeholder="text" value={f.q} onInput={set('q')} aria-label="Text" name="q" type="search" />
      {any && <button type="button" class="link" onClick={() => props.onChange(NO_FILTERS)}>Clear</button>}
    </form>
  );
}

function Approvals(props: { approvals: Approval[] | null; note: string; canAnswer: boolean; onChanged: () => void }) {
  const [error, setError] = useState('');
  const answer = async (a: Approval, verdict: 'allow' | 'deny') => {
    setError('');
    try {
      await api('POST', `/v1/approvals/${encodeURIComponent(a.id)}/answer`, { verdict, scope: 'once' });
    } catch (e) {
      setError(message(e));
    }
    props.onChanged();
  };
  const list = props.approvals;
  return (
    <section class="approvals" aria-label="Pending approvals" data-testid="approvals">
      <h2>Waiting for a person {list && list.length > 0 && <span class="count">{list.length}</span>}</h2>
      {props.note && <p class="muted">{props.note}</p>}
      {error && <p class="error">{error}</p>}
      {list && list.length === 0 && <p class="muted">No call is waiting.</p>}
      <ul>
        {(list ?? []).map((a) => (
          <li key={a.id} class="approval" data-testid="approval" data-id={a.id}>
            <code class="summary">{summaryOf(a.call.input)}</code>
            <p>
              <b>{a.decision.rule ?? a.decision.tier}</b>: {a.decision.reason}
            </p>
            <p class="muted">
              {a.call.agent ?? 'agent'} in {a.call.cwd} · asked {time(a.createdAt)} · expires {time(a.expiresAt)}
              {a.requestedBy ? ` · by ${a.requestedBy}` : ''}
            </p>
            {props.canAnswer ? (
              <div class="buttons">
                <button class="approve" onClick={() => answer(a, 'allow')}>Approve</button>
                <button class="deny" onClick={() => answer(a, 'deny')}>Deny</button>
              </div>
            ) : (
              <p class="muted">This token has no approve scope.</p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function summaryOf(input: Record<string, unknown>): string {
  for (const k of ['command', 'cmd', 'file_path', 'path', 'url']) {
    const v = input[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return JSON.stringify(input);
}

function Detail(props: { id: string; onClose: () => void }) {
  const [d, setD] = useState<DecisionDetail | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setD(null);
    api<DecisionDetail>('GET', `/v1/decisions/${encodeURIComponent(props.id)}`).then(setD, (e) => setError(message(e)));
  }, [props.id]);
  useEffect(() => {
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && props.onClose();
    window.addEventListener('keydown', esc);
    return () => window.removeEventListener('keydown', esc);
  }, []);
  const input = useMemo(() => (d?.event.input ? JSON.stringify(d.event.input, null, 2) : ''), [d]);
  return (
    <div class="overlay" onClick={props.onClose}>
      <article class="detail" data-testid="detail" onClick={(e) => e.stopPropagation()} aria-label="Decision">
        <button class="close link" onClick={props.onClose} aria-label="Close">✕</button>
        {error && <p class="error">{error}</p>}
        {!d && !error && <p>Loading…</p>}
        {d && (
          <>
            <h2>
              <span class={`verdict v-${d.decision.verdict}`}>{d.decision.verdict}</span> {d.decision.tier}{' '}
              <code>{d.decision.rule ?? ''}</code>
            </h2>
            <p class="reason">{d.decision.reason}</p>
            <dl>
              <dt>When</dt><dd>{new Date(d.decision.ts).toLocaleString()}</dd>
              <dt>Tool</dt><dd>{d.decision.tool}{d.decision.clientTool ? ` (${d.decision.clientTool})` : ''}</dd>
              <dt>Agent</dt><dd>{d.decision.agent ?? '—'}</dd>
              <dt>Session</dt><dd>{d.decision.session ?? '—'}</dd>
              <dt>Directory</dt><dd><code>{d.decision.cwd}</code></dd>
              {d.decision.principal && <><dt>Token</dt><dd>{d.decision.principal}</dd></>}
              <dt>Layer</dt><dd>{d.event.layer ?? '—'}{d.event.ms !== undefined ? ` · ${d.event.ms} ms` : ''}{d.event.error_code ? ` · ${d.event.error_code}` : ''}</dd>
              <dt>Decision id</dt><dd><code>{d.decision.decisionId}</code></dd>
            </dl>
            <h3>Findings</h3>
            {(d.event.findings ?? []).length === 0 ? <p class="muted">None.</p> : (
              <ul class="findings" data-testid="findings">
                {(d.event.findings ?? []).map((f) => (
                  <li><b>{f.rule}</b> <span class="tier">{f.tier}</span>: {f.reason}{f.subject ? <> — <code>{f.subject}</code></> : null}</li>
                ))}
              </ul>
            )}
            <h3>Judge</h3>
            {d.event.judge ? (
              <p data-testid="judge">{d.event.judge.verdict} ({d.event.judge.provider} {d.event.judge.model}, {d.event.judge.latency_ms} ms{d.event.judge.cache_hit ? ', cached' : ''}): {d.event.judge.reason}</p>
            ) : <p class="muted">Not asked.</p>}
            <h3>Input{d.event.erased && d.event.erased.length > 0 ? <span class="muted"> (secrets removed from {d.event.erased.join(', ')})</span> : null}</h3>
            <pre data-testid="input">{input}</pre>
            <h3>Policy layers of this directory now</h3>
            {d.policy.error ? <p class="error">{d.policy.error}</p> : (
              <ul class="layers" data-testid="layers">
                {d.policy.layers.map((l) => (
                  <li><b>{l.layer}</b> <code>{l.path}</code>{l.trusted ? '' : <span class="warn"> untrusted: its loosening is ignored</span>}</li>
                ))}
              </ul>
            )}
          </>
        )}
      </article>
    </div>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
