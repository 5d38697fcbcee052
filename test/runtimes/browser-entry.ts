// Entry for Chromium: the bundled suite, exposed to the page for the test to call.
import { runSmoke } from './smoke.js';

(globalThis as { agdxSmoke?: typeof runSmoke }).agdxSmoke = runSmoke;
