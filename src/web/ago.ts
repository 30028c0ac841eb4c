// How long ago a time was, as a person reads it on the Team view ("3 min ago"), and when a machine counts as
// stale: no contact for more than a day means its shipper stopped (laptop off, token revoked, asimov removed).

/** No contact for longer than this: the machine is shown as stale. */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

export function ago(iso: string, now: number = Date.now()): string {
  const ms = now - Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  if (ms < 45_000) return 'just now';
  const min = Math.round(ms / 60_000);
  if (min < 60) return `${min} min ago`;
  const h = Math.round(ms / 3_600_000);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(ms / 86_400_000)} d ago`;
}

export function isStale(iso: string, now: number = Date.now()): boolean {
  return now - Date.parse(iso) > STALE_AFTER_MS;
}
