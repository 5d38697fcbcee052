/**
 * The AG-UI live page (examples/agui-live) as two static files, for the example apps to serve
 * next to the bridges. The page reads the AG-UI endpoint named by its `endpoint` query
 * parameter: open `/?threadId=<conversation>&endpoint=/agents/agui`.
 */

import { readFileSync } from 'node:fs';

/** One static file of the page. */
export interface PageFile {
  readonly type: string;
  readonly body: string;
}

const PAGE_DIR = new URL('../agui-live/', import.meta.url);

/** The page's files by path (`/` and `/app.js`), read once. */
export function livePage(): ReadonlyMap<string, PageFile> {
  const html = { type: 'text/html; charset=utf-8', body: readFileSync(new URL('index.html', PAGE_DIR), 'utf8') };
  return new Map([
    ['/', html],
    ['/index.html', html],
    ['/app.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('app.js', PAGE_DIR), 'utf8') }],
  ]);
}
