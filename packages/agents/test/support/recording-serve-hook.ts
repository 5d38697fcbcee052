/** A telemetry hook whose serve spans record how the bridge ended them, for the serve tests. */
import type { AgdxTelemetry, ServeFailure, ServeStreamSummary } from '@agdx/agents';

/** One `end` call a serve span received. */
export interface EndedServe {
  readonly failure: ServeFailure | undefined;
  readonly conversation: string | undefined;
  readonly stream: ServeStreamSummary | undefined;
}

/** The hook, what its spans were ended with, and whether work runs inside a span right now. */
export function recordingServeHook(): { hook: AgdxTelemetry; ended: EndedServe[]; running: () => boolean } {
  const ended: EndedServe[] = [];
  let inside = false;
  const hook = {
    onServe: () => ({
      async run<T>(work: () => Promise<T>): Promise<T> {
        inside = true;
        try {
          return await work();
        } finally {
          inside = false;
        }
      },
      end: (failure: ServeFailure | undefined, conversation?: string, stream?: ServeStreamSummary) => void ended.push({ failure, conversation, stream }),
    }),
  } as unknown as AgdxTelemetry;
  return { hook, ended, running: () => inside };
}
