// The server's in-process event bus: new decisions read from the audit log, approvals created and answered.
// The dashboard's live feed (server-sent events) subscribes to it; so do calls waiting for an approval.

export type ServerEvent =
  | { type: 'decision'; data: unknown }
  | { type: 'approval'; data: unknown };

export interface EventBus {
  publish(e: ServerEvent): void;
  /** Returns the unsubscribe function. */
  subscribe(fn: (e: ServerEvent) => void): () => void;
  /** How many subscribers there are (tests, metrics). */
  readonly size: number;
}

export function createEventBus(): EventBus {
  const subs = new Set<(e: ServerEvent) => void>();
  return {
    publish(e) {
      for (const fn of [...subs]) {
        try {
          fn(e);
        } catch {
          /* one broken subscriber must not stop the others */
        }
      }
    },
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
    get size() {
      return subs.size;
    },
  };
}
