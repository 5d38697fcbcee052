import type { StreamLayout } from './stream-layout.js';

/** A layout as the messages of LayoutMismatchError name it: its kind and, per agent, its place. */
export function describeLayout(layout: StreamLayout): string {
  if (layout.kind === 'perAgentTopic') return `perAgentTopic (${[...layout.topics].map(([a, t]) => `${a} -> ${t}`).join(', ')})`;
  if (layout.kind === 'perAgentPartition') return `perAgentPartition (${[...layout.partitions].map(([a, p]) => `${a} -> ${p}`).join(', ')})`;
  return layout.kind;
}
