/**
 * The method name a bridge reports to telemetry for a served call. The JSON-RPC method is the
 * client's own text: reported as it is, it becomes a span name and an `rpc.method` attribute, so
 * a client could send a megabyte of it per call into the exporter's queue, or a new span name
 * per call.
 */

/** What a method the bridge does not serve is reported as (OpenTelemetry's name for an unknown method). */
export const OTHER_METHOD: '_OTHER' = '_OTHER';

/** `method` when it is one of `served`, else {@link OTHER_METHOD}. */
export function servedMethodName(method: string, served: readonly string[]): string {
  return served.includes(method) ? method : OTHER_METHOD;
}
