import { describe, it } from 'vitest';
import { memoryEnv } from './support-runtime/env.js';
import { crashLoopIsDeadLettered, normalRestartsDeadLetterNothing } from './support-runtime/crash-loop-scenarios.js';

describe('crash-loop guard (MemoryLog)', () => {
  it('dead-letters a record that kills the process on every start, after the limit, and handles the records after it', () => crashLoopIsDeadLettered(memoryEnv));

  it('dead-letters nothing over clean, idle and once-crashed restarts', () => normalRestartsDeadLetterNothing(memoryEnv));
});
