// Seed 002 (Interop), "A2A": handleRpc with GetTask, TypeScript.
// Imports, the client construction and the names the snippet assumes (a `bridge`, a worker and
// a submitted task's `taskId`) are added around the seed text.
import { AgdxClient, Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { A2aBridge } from '@agdx/bridge-a2a';
import { MemoryLog } from '@agdx/transport';
import { AgentId } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);
const bridge = new A2aBridge(laser, AgentId.new('a2a-gateway'), AgentTopic.Sessions, AgentTopic.Sessions);
{
  await using worker = Agent.builder()
    .id(AgentId.new('assistant'))
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .handler((message, ctx) => ctx.respond(new TextEncoder().encode(`handled ${agentMessageBody(message).byteLength} bytes`)))
    .build()
    .spawn(laser);
  await worker.ready();
  const task = await bridge.submit({ message: { role: 'ROLE_USER', parts: [{ text: 'summarize' }] } }, { target: AgentId.new('assistant') });
  const taskId = task.id;

  let state = '';
  for (let attempt = 0; attempt < 200 && state !== 'TASK_STATE_COMPLETED'; attempt++) {
    // --- seed text ---
    const response = await bridge.handleRpc({
      jsonrpc: "2.0",
      id: 1,
      method: "GetTask",
      params: { id: taskId }
    })
    // --- end of seed text ---
    state = String((response as { result?: { status?: { state?: unknown } } }).result?.status?.state);
    if (state !== 'TASK_STATE_COMPLETED') await new Promise((resolve) => setTimeout(resolve, 25));
    else console.log(JSON.stringify(response));
  }
  if (state !== 'TASK_STATE_COMPLETED') throw new Error(`the task did not complete: ${state}`);
}
await laser.close();
