import { locateRecords, type StreamLayout } from '@agdx/agents';
import { partitionForKey, type PartitionDescription, type TopicDescription } from '@agdx/transport';
import type { ConversationId } from '@agdx/wire';

/**
 * The partitions of a topic that a read of `conversation` looks at, as the stream layout says.
 * Session turns (and memory records) are keyed by their conversation on every layout, so on a
 * turn topic the answer is one partition: the conversation's own. A topic a per-agent layout
 * redirects (`agent.sessions` named as a turn topic) adds the declared agents' partitions on it;
 * the routes to other topics are left out, since a read covers only the topics it names.
 *
 * Every partition is read, as before layouts were asked, when the layout cannot say: no layout
 * is given, a route is not keyed or pinned, the description's partition count disagrees with its
 * partition list, or a located partition is not in that list.
 */
export async function turnPartitions(
  layout: StreamLayout | undefined,
  description: TopicDescription,
  conversation: ConversationId,
): Promise<readonly PartitionDescription[]> {
  const all = description.partitions;
  if (layout === undefined || all.length <= 1 || description.partitionCount !== all.length) return all;
  const wanted = new Set<number>();
  for (const route of locateRecords(layout, { topic: description.topic, conversation: conversation.toString() })) {
    if (route.topic !== description.topic) continue;
    const routing = route.routing as { readonly partition?: number; readonly key?: string | Uint8Array };
    if (routing.partition !== undefined) wanted.add(routing.partition);
    else if (routing.key !== undefined) wanted.add(await partitionForKey(routing.key, description.partitionCount));
    else return all;
  }
  const located = all.filter((p) => wanted.has(p.partition));
  return located.length === wanted.size && located.length > 0 ? located : all;
}
