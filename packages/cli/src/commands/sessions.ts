import type { Command } from './command.js';
/** stub */
export const sessionsCommand: Command = { name: 'sessions', summary: 'todo', help: 'todo', async run() {} };
