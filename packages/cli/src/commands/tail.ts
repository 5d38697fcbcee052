import type { Command } from './command.js';
/** stub */
export const tailCommand: Command = { name: 'tail', summary: 'todo', help: 'todo', async run() {} };
