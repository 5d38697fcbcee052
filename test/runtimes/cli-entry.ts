// Entry for Node, Deno and Bun: runs the suite and prints one JSON line the test reads.
import { runSmoke } from './smoke.js';

const results = await runSmoke();
console.log(JSON.stringify({ results }));
