/** The client session a connection drives: either generation of the Iggy protocol. */

import type { ClassicClientSession, VsrClientSession } from '@agdx/iggy-protocol';

/** A VSR or classic client session (one per socket). */
export type Session = VsrClientSession | ClassicClientSession;
