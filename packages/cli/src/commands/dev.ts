import type { Command } from './command.js';
/** stub */
export const devCommand: Command = { name: 'dev', summary: 'todo', help: 'todo', async run() {} };
