/** A node:http server an app started on an ephemeral loopback port, as a {@link RunningApp}. */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningApp } from './checklist.js';

/** Waits until `server` listens and gives its URL and a close that drops open streams first. */
export async function listening(server: Server): Promise<RunningApp> {
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
