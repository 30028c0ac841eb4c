// Per-decision time for a stream of decisions (`check --batch`, the daemon): the mean as well as the median,
// because a few slow calls can cost as much as all the fast ones together and a median alone hides them.

/** Median and p99 are over the most recent decisions only, so a long-running daemon holds bounded memory. */
export const TIMING_WINDOW = 100_000;

export interface TimingSummary {
  /** Decisions timed since the start. */
  decisions: number;
  /** Over every decision timed. */
  meanUs: number;
  /** Over the last TIMING_WINDOW decisions (nearest rank, so a real sample). */
  medianUs: number;
  p99Us: number;
  maxUs: number;
}

export interface DecisionTiming {
  /** Adds one decision that took this many microseconds. */
  record(us: number): void;
  /** Starts a clock; the function it returns records the time since (for the daemon's requests). */
  begin(): () => void;
  /** Null before the first decision. */
  summary(): TimingSummary | null;
}

export function createDecisionTiming(window = TIMING_WINDOW): DecisionTiming {
  const recent = new Float64Array(window);
  let count = 0;
  let sum = 0;
  let max = 0;
  const record = (us: number): void => {
    recent[count % window] = us;
    count++;
    sum += us;
    if (us > max) max = us;
  };
  return {
    record,
    begin: () => {
      const t0 = process.hrtime.bigint();
      return () => record(Number(process.hrtime.bigint() - t0) / 1000);
    },
    summary: () => {
      if (count === 0) return null;
      const sorted = recent.slice(0, Math.min(count, window)).sort();
      const at = (q: number): number => sorted[Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1]!;
      return { decisions: count, meanUs: sum / count, medianUs: at(0.5), p99Us: at(0.99), maxUs: max };
    },
  };
}

/** One line for people: "12,607 decisions: mean 35.2 µs, median 27.1 µs, p99 210 µs, max 1.9 ms". */
export function formatTiming(s: TimingSummary): string {
  return `${s.decisions.toLocaleString('en-US')} decision${s.decisions === 1 ? '' : 's'}: mean ${us(s.meanUs)}, median ${us(s.medianUs)}, p99 ${us(s.p99Us)}, max ${us(s.maxUs)}`;
}

function us(v: number): string {
  if (v >= 1000) return `${(v / 1000).toFixed(v >= 10_000 ? 0 : 1)} ms`;
  return `${v.toFixed(v >= 100 ? 0 : 1)} µs`;
}
