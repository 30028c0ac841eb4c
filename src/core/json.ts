// Shape checks for JSON that comes from outside (hook payloads, settings files, MCP messages, case files).

/** A plain object (not null, not an array). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
