/**
 * The two Iggy protocol generations. `vsr` is binary protocol 0.11 (server 0.9 line, 256-byte
 * VSR headers, options blocks, the canonical message batch); `classic` is binary protocol 0.10
 * (servers up to 0.8.x, length/code frames, the 64-byte message format).
 */
export type IggyProtocol = 'vsr' | 'classic';
