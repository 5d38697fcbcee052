import type { Command } from './command.js';
/** stub */
export const benchCommand: Command = { name: 'bench', summary: 'todo', help: 'todo', async run() {} };
