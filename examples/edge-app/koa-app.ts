/**
 * The edges in a Koa 3 app with `@koa/bodyparser` in front: each bridge mounted with
 * `koa-mount` under a prefix. The parser reads the body first, so the bridges use what it kept
 * (`rawBody`); mount a bridge before the parser instead to have its own 413 for bodies over
 * the parser's limit too.
 */

import Koa from 'koa';
import mount from 'koa-mount';
import { bodyParser } from '@koa/bodyparser';
import { toKoaMiddleware } from '@agdx/bridge-kit/node';
import { MOUNTS, type EdgeHandlers } from './edge.js';

/** The Koa app serving `handlers`; `maxBodyBytes` caps every bridge body. */
export function createKoaApp(handlers: EdgeHandlers, maxBodyBytes: number): Koa {
  const app = new Koa();
  app.use(bodyParser());
  for (const [edge, path] of Object.entries(MOUNTS) as [keyof EdgeHandlers, string][]) {
    app.use(mount(path, toKoaMiddleware(handlers[edge], { maxBodyBytes })));
  }
  return app;
}
