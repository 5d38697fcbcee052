/**
 * Where a connection is in its life: `connecting` (searching and logging in), `restoring`
 * (logged in again, running restore hooks: only internal calls go out), `ready`, `down` (lost,
 * a reconnect not started or given up), `closed` (for good).
 */
export type ConnectionState = 'connecting' | 'restoring' | 'ready' | 'down' | 'closed';
