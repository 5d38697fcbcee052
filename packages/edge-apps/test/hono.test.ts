import { createHonoApp } from '../../../examples/edge-app/hono-app.js';
import type { EdgeHandlers } from '../../../examples/edge-app/edge.js';
import { edgeChecklist, type RunningApp } from './support/checklist.js';
import { serveFetch } from './support/serve-fetch.js';

// No adapter of ours: Hono hands the handlers its web-standard request as it is.
edgeChecklist('Hono', (handlers: EdgeHandlers): Promise<RunningApp> => serveFetch(createHonoApp(handlers).fetch));
