/**
 * The finish reason a chunk stream and the response carry for an AI SDK finish reason. The seeds
 * pin only `stop` (the default) and the reader-local `gap` and `abandoned`; the rest follow the
 * OpenTelemetry GenAI names (`tool_calls`, `content_filter`), which other AGDX SDKs also write, so
 * a dashboard groups them with model calls made elsewhere.
 */
export function seedFinishReason(reason: unknown): string {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'interrupted':
    case 'error':
      return reason;
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    default:
      // An unknown or missing reason (a newer SDK, a hand-made stream) is still a finished stream.
      return 'other';
  }
}
