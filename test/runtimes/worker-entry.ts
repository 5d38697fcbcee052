// Entry for workerd: `/smoke` runs the suite inside the Worker; other paths are the bridges,
// which the test calls from Node over HTTP, as a deployed Worker would be called.
import { runSmoke, serveBridges } from './smoke.js';

export default {
  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === '/smoke') return Response.json({ results: await runSmoke(false) });
    return serveBridges(request);
  },
};
