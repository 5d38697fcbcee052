import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { IggyTransport } from '@agdx/transport-iggy';
import { batchesOf } from './support/send-and-poll.js';
const script = fileURLToPath(new URL('./support/iggy-sink.ts', import.meta.url));
const child = spawn(process.execPath, [...process.execArgv, script], { stdio: ['pipe', 'pipe', 'inherit'] });
const ports = await new Promise<any>((res) => createInterface({ input: child.stdout }).once('line', (l) => res(JSON.parse(l))));
const protocol = (process.env.P ?? 'vsr') as 'vsr' | 'classic';
const t = await IggyTransport.connect({ port: ports[protocol], protocol, heartbeatIntervalMs: 0, cluster: { discover: false } });
const warm = process.env.WARM === '1';
const built = batchesOf(1000, warm ? 8000 : 200000, 100);
for (let r = 0; r < (Number(process.env.R ?? 6)); r++) {
  const c0 = process.cpuUsage(); const s = performance.now();
  for (let b = 0; b < 200; b++) await t.append({ stream: 'sink', topic: 'sink', routing: { partition: 0 }, records: built[b % built.length]! });
  const ms = performance.now() - s; const cpu = process.cpuUsage(c0);
  console.log('MB/s', (20e6 / ms / 1000).toFixed(0), 'cpu µs/batch', ((cpu.user + cpu.system) / 200).toFixed(0), 'user', (cpu.user/200).toFixed(0), 'sys', (cpu.system/200).toFixed(0), 'wall µs/batch', (ms*1000/200).toFixed(0));
}
await t.close(); child.stdin.end();
