/**
 * The apache/iggy repository's own message-batch vectors (sheet §3.1): V1, a produce body of two
 * frames, and V2, the poll body of the same batch stamped. Shared by the golden-vector tests of
 * the JavaScript and the WebAssembly hashing paths.
 */
import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { hex, utf8 } from '../helpers.js';

const FRAME_1 = 'bfd2b9205a759675 07000000000000000000000000000000 00000000 00000000 00000000 0d000000 0000000000000000 66697273742d7061796c6f6164';
const FRAME_2 = 'd66b7e1c758eb7c0 08000000000000000000000000000000 01000000 32000000 11000000 0e000000 0000000000000000 7365636f6e642d7061796c6f6164 757365722d6865616465722d6279746573';

export const V1_MESSAGES: OutgoingMessage[] = [
  { id: 7n, originTimestamp: 1000n, payload: utf8('first-payload') },
  { id: 8n, originTimestamp: 1050n, payload: utf8('second-payload'), rawHeaders: utf8('user-header-bytes') },
];

export const V1 = hex(`12000000 0104 01000000 0104 02000000 0100 02000000
  0000000000000000 0000000000000000 0000000000000000 e803000000000000 8c01000000000000 a91f38c86307267c 02000000 [zeros:204]
  ${FRAME_1} ${FRAME_2}`);

export const V2 = hex(`03000000 6500000000000000 02000000
  0300000000000000 6400000000000000 8813000000000000 e803000000000000 8c01000000000000 c96826b38a8feed2 02000000 [zeros:204]
  ${FRAME_1} ${FRAME_2}`);
