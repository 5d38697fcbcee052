/**
 * Long run of lockout resistance: --hostile sockets (default 1,000: 8-byte senders, slow
 * senders, partial frames, wrong passwords) fill the dev server to its connection limit while
 * the real client of each protocol connects, appends and reads back --rounds times (default 60,
 * --spacing-ms 500 apart, so the run outlasts the 10 s pre-login timeout twice). The attackers
 * run in a child process, the server and the good client in this one. Then --partial sockets (default 12) each push a 64 MiB frame before login; then one address guesses
 * passwords back to back for --guess-ms (default 30,000). Writes
 * results/lockout.json; exits 1 when a round failed or a connect took longer than 1 s at the
 * median (the target).
 */
import { measureBruteForce, measurePartialFrames, runLockout, startAttackInChild } from '../test/support/lockout-scenario.js';
import { numberArg, writeResult } from '../test/support/results.js';

const lockout = await runLockout({ hostile: numberArg('hostile', 1_000), rounds: numberArg('rounds', 60), spacingMs: numberArg('spacing-ms', 500), fillTimeoutMs: 60_000, attack: startAttackInChild });
const failed = lockout.rounds.filter((r) => r.error !== undefined || !r.readBack);
process.stdout.write(
  `${lockout.hostile} hostile sockets (${lockout.rounds[0]?.hostileOpen ?? 0} open at the first round, ${Object.values(lockout.opened).reduce((a, b) => a + b, 0)} opened in all), ${lockout.rounds.length} good rounds, ${failed.length} failed; connect median ${lockout.connectMs.p50.toFixed(0)} ms, p99 ${lockout.connectMs.p99.toFixed(0)} ms, max ${lockout.connectMs.max.toFixed(0)} ms; longest event-loop stall ${lockout.maxEventLoopDelayMs} ms; shed ${lockout.shed}; wrong passwords ${lockout.wrongPasswords}, locked-out answers ${lockout.lockedOutAnswers}\n`,
);
const memory = await measurePartialFrames(numberArg('partial', 12));
process.stdout.write(
  `${memory.sockets} partial-frame sockets: ${memory.closedByServer} closed by the server (the attacker wrote ${(memory.writtenBytes / memory.sockets / 1024).toFixed(0)} KiB each on average, kernel buffers included); ArrayBuffer growth ${memory.arrayBuffersGrowthMb} MB, RSS growth ${memory.rssGrowthMb} MB\n`,
);
const brute = await measureBruteForce(numberArg('guess-ms', 30_000));
process.stdout.write(`brute force for ${brute.durationMs} ms from one address: ${brute.checked} passwords checked, ${brute.refused} refused unchecked, over ${brute.connections} connections\n`);
writeResult('lockout', { lockout, partialFrames: memory, bruteForce: brute });
process.exit(failed.length === 0 && lockout.connectMs.p50 <= 1_000 && memory.closedByServer === memory.sockets && brute.checked <= 10 ? 0 : 1);
