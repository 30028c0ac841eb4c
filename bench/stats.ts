// Small statistics for the bench: medians, percentiles and shares, kept pure so they can be unit-tested.

/** Percentile by the nearest-rank method over an ascending array (no interpolation, so p99 is a real sample). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (q <= 0) return sorted[0]!;
  if (q >= 1) return sorted[sorted.length - 1]!;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The usual median: the middle sample, or the mean of the two middle samples. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = values.slice().sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Summary {
  n: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(values: readonly number[]): Summary {
  const s = values.slice().sort((a, b) => a - b);
  let sum = 0;
  for (const v of s) sum += v;
  return {
    n: s.length,
    median: median(s),
    p90: quantile(s, 0.9),
    p99: quantile(s, 0.99),
    max: s.length > 0 ? s[s.length - 1]! : Number.NaN,
    mean: s.length > 0 ? sum / s.length : Number.NaN,
  };
}

/** Share in percent; NaN when there is nothing to divide (so "no cases" never reads as 0% or 100%). */
export function percent(part: number, whole: number): number {
  return whole === 0 ? Number.NaN : (100 * part) / whole;
}

/**
 * A share with one decimal, rounded down: 96.96% shows as 96.9%, never as a 97.0% that then fails a ≥ 97%
 * target, and one false allow in 3,000 never shows as 100.0%.
 */
export function formatPercent(p: number): string {
  if (Number.isNaN(p)) return 'n/a';
  return `${(Math.floor(p * 10 + 1e-9) / 10).toFixed(1)}%`;
}

/** Count occurrences of each key and return the most common first (ties by key, so output is stable). */
export function topCounts(keys: Iterable<string>, limit: number): [string, number][] {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, limit);
}
