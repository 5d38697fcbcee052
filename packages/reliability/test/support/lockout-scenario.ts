/**
 * Lockout resistance of the dev server: hostile sockets of four kinds fill it (8-byte senders,
 * slow senders, the first 3 KiB of a frame that declares 64 MiB, wrong passwords from another
 * loopback address), each reopened when the server drops it, while a well-behaved client, the real
 * @agdx/transport-iggy client from 127.0.0.1, connects, appends and reads its record back.
 * A second phase measures the memory 12 partial-frame sockets cost the server.
 */
import { connect } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer, DevServerOptions } from '@agdx/iggy-dev-server';
import { encodeClassicRequest, encodeLoginUserRequest, CommandCode, VsrClientSession } from '@agdx/iggy-protocol';
import type { IggyProtocol } from '@agdx/iggy-protocol';
import { summarize } from '@agdx/reliability';
import type { SampleSummary } from '@agdx/reliability';
import { IggyTransport } from '@agdx/transport-iggy';
import { exited, kill, startChild } from './processes.js';

/** The kinds of hostile socket. */
export type HostileKind = 'eight-bytes' | 'slow-sender' | 'partial-frame' | 'wrong-password';

const KINDS: readonly HostileKind[] = ['eight-bytes', 'slow-sender', 'partial-frame', 'wrong-password'];

/** Where the wrong-password sockets come from: an attacker's address, not the good client's. */
export const ATTACKER_HOST = '127.0.0.2';

/** Options of {@link runLockout}. */
export interface LockoutOptions {
  /** Hostile sockets kept open, split evenly over the four kinds. */
  readonly hostile: number;
  /** Good-client rounds per protocol (connect, append, read back, close). */
  readonly rounds: number;
  /** Server options on top of the defaults (the default `maxConnections` is `hostile`, so the server is full). */
  readonly server?: DevServerOptions;
  /** Give up waiting for the hostile sockets to be open after this long, ms. */
  readonly fillTimeoutMs?: number;
  /**
   * Starts the attack (default: {@link startAttack} in this process). The long run passes one
   * in a child process, so the attackers' event loop does not stall the server's.
   */
  readonly attack?: (port: number, count: number) => Promise<Attack> | Attack;
  /**
   * Pause between rounds, ms (default 0). Spread over more than the pre-login timeout, the
   * rounds also meet the waves of hostile sockets the server closes and the attacker reopens.
   */
  readonly spacingMs?: number;
}

/** One good-client round. */
export interface GoodRound {
  readonly protocol: IggyProtocol;
  /** Hostile sockets open on the server when the round began. */
  readonly hostileOpen: number;
  /** `IggyTransport.connect` until it resolved (TCP, login), ms. */
  readonly connectMs: number;
  /** Connect, create stream and topic, append one record and read it back, ms. */
  readonly totalMs: number;
  /** The record read back equals the one appended. */
  readonly readBack: boolean;
  /** The error, when the round failed. */
  readonly error?: string;
}

/** Figures of a run. */
export interface LockoutReport {
  readonly hostile: number;
  readonly maxConnections: number;
  /** Hostile sockets opened over the run (reopened after every drop), by kind. */
  readonly opened: Readonly<Record<HostileKind, number>>;
  /** Hostile sockets the server closed, by kind. */
  readonly closedByServer: Readonly<Record<HostileKind, number>>;
  /** Wrong passwords sent, and how many were answered 58 (address locked out). */
  readonly wrongPasswords: number;
  readonly lockedOutAnswers: number;
  /** Connections the server shed to make room. */
  readonly shed: number;
  readonly rounds: readonly GoodRound[];
  /** How long the filling took (until 95% of the hostile sockets were open), ms. */
  readonly fillMs: number;
  /**
   * The longest event-loop stall of this process while the rounds ran, ms. The server and the
   * attackers share it, so a stall here delays the good client without being the server's doing.
   */
  readonly maxEventLoopDelayMs: number;
  /** Over the successful rounds. */
  readonly connectMs: SampleSummary;
  readonly totalMs: SampleSummary;
}

function zeroCounts(): Record<HostileKind, number> {
  return { 'eight-bytes': 0, 'slow-sender': 0, 'partial-frame': 0, 'wrong-password': 0 };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A frame prefix declaring a 64 MiB request, the size that used to be buffered in full. */
function partialFramePrefix(): Uint8Array {
  const prefix = new Uint8Array(8);
  const view = new DataView(prefix.buffer);
  view.setUint32(0, 64 * 1024 * 1024 - 8, true);
  view.setUint32(4, CommandCode.SendMessages, true);
  return prefix;
}

/**
 * Writes up to `limit` bytes after `prefix` in 64 KiB chunks, each after the previous one
 * drained, so the attacker's own buffers stay small; resolves with the bytes written.
 */
async function pushPartial(socket: Socket, prefix: Uint8Array, limit: number, stopped: () => boolean): Promise<number> {
  const chunk = new Uint8Array(64 * 1024);
  let written = prefix.length;
  socket.write(prefix);
  while (written < limit && !socket.destroyed && !stopped()) {
    written += chunk.length;
    if (!socket.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.once('drain', done);
        socket.once('close', done);
      });
    }
  }
  return written;
}

/** What an attack reports when it stops. */
export interface AttackStats {
  readonly opened: Readonly<Record<HostileKind, number>>;
  readonly closedByServer: Readonly<Record<HostileKind, number>>;
  readonly wrongPasswords: number;
  readonly lockedOutAnswers: number;
}

/** A running attack, in this process or in a child. */
export interface Attack {
  /** Hostile sockets connected and not yet closed (the latest figure). */
  open(): number;
  /** Stops it, closes its sockets and returns its figures. */
  stop(): Promise<AttackStats>;
}

/** Starts `count` hostile sockets against `port` in this process, split evenly over the kinds. */
export function startAttack(port: number, count: number): Attack {
  const lane = new HostileLane(port);
  const slots: Promise<void>[] = [];
  for (let i = 0; i < count; i++) slots.push(lane.slot(KINDS[i % KINDS.length] as HostileKind, Math.floor(i / KINDS.length)));
  return {
    open: () => lane.open,
    stop: async () => {
      lane.stop();
      await Promise.all(slots);
      return { opened: lane.opened, closedByServer: lane.closedByServer, wrongPasswords: lane.wrongPasswords, lockedOutAnswers: lane.lockedOutAnswers };
    },
  };
}

/** The hostile side: keeps sockets of each kind open until stopped. */
class HostileLane {
  readonly opened = zeroCounts();
  readonly closedByServer = zeroCounts();
  wrongPasswords = 0;
  lockedOutAnswers = 0;
  #stopped = false;
  readonly #sockets = new Set<Socket>();
  readonly #port: number;

  constructor(port: number) {
    this.#port = port;
  }

  /** Hostile sockets connected and not yet closed. */
  get open(): number {
    let n = 0;
    for (const s of this.#sockets) if (!s.connecting && !s.destroyed) n++;
    return n;
  }

  /** Runs one socket slot of `kind`: open, misbehave, and reopen after the server drops it. */
  async slot(kind: HostileKind, index: number): Promise<void> {
    // Bounded: every pass opens one socket and the loop ends on stop().
    while (!this.#stopped) {
      const closedByServer = await this.#once(kind, index);
      if (closedByServer) this.closedByServer[kind]++;
      // A pause before reopening keeps the attack from spinning the shared CPU.
      if (!this.#stopped) await sleep(250);
    }
  }

  #once(kind: HostileKind, index: number): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: this.#port, ...(kind === 'wrong-password' ? { localAddress: ATTACKER_HOST } : {}) });
      this.#sockets.add(socket);
      this.opened[kind]++;
      let timer: ReturnType<typeof setInterval> | undefined;
      socket.on('error', () => undefined);
      socket.once('close', () => {
        if (timer !== undefined) clearInterval(timer);
        this.#sockets.delete(socket);
        resolve(!this.#stopped);
      });
      socket.once('connect', () => {
        switch (kind) {
          case 'eight-bytes':
            socket.write(new Uint8Array([8, 0, 0, 0, 1, 0, 0, 0]));
            break;
          case 'slow-sender': {
            // A valid classic login, one byte every 500 ms.
            const frame = encodeClassicRequest(CommandCode.LoginUser, encodeLoginUserRequest({ username: 'iggy', password: 'iggy' }));
            let sent = 0;
            timer = setInterval(() => {
              if (sent < frame.length) socket.write(frame.subarray(sent, ++sent));
            }, 500);
            break;
          }
          case 'partial-frame':
            // The start of a 64 MiB frame, kept under the pre-login buffer so the socket holds
            // its slot (measurePartialFrames pushes the whole frame).
            socket.write(partialFramePrefix());
            socket.write(new Uint8Array(3 * 1024));
            break;
          case 'wrong-password':
            this.#guess(socket, index % 2 === 0 ? 'vsr' : 'classic');
            break;
        }
      });
    });
  }

  /** Sends wrong passwords, one after each answer, counting lockout refusals (58). */
  #guess(socket: Socket, protocol: IggyProtocol): void {
    let n = 0;
    const next = (): void => {
      if (this.#stopped || socket.destroyed) return;
      this.wrongPasswords++;
      const password = `guess-${n++}`;
      socket.write(
        protocol === 'vsr'
          ? new VsrClientSession({ sdkName: 'attacker', sdkVersion: '0' }).register({ username: 'iggy', password }).frame
          : encodeClassicRequest(CommandCode.LoginUser, encodeLoginUserRequest({ username: 'iggy', password })),
      );
    };
    socket.on('data', (chunk: Buffer) => {
      // Classic answers are 8 bytes [status][length]; VSR replies carry the code in the body.
      if (protocol === 'classic' && chunk.length >= 4 && chunk.readUInt32LE(0) === 58) this.lockedOutAnswers++;
      if (protocol === 'vsr' && chunk.length >= 268 && chunk.readUInt32LE(264) === 58) this.lockedOutAnswers++;
      next();
    });
    next();
  }

  stop(): void {
    this.#stopped = true;
    for (const s of this.#sockets) s.destroy();
  }
}

async function goodRound(server: DevServer, protocol: IggyProtocol, round: number, hostileOpen: number): Promise<GoodRound> {
  const started = performance.now();
  let connectMs = Number.NaN;
  try {
    const t = await IggyTransport.connect(server.url, { protocol, connectTimeoutMs: 30_000, requestTimeoutMs: 30_000 });
    connectMs = performance.now() - started;
    try {
      await t.ensureStream('lockout');
      await t.ensureTopic({ stream: 'lockout', topic: 'good' }, { partitions: 1 });
      const payload = new TextEncoder().encode(`good ${protocol} ${round}`);
      const appended = await t.append({ stream: 'lockout', topic: 'good', records: [{ payload }] });
      const [back] = await t.read({ stream: 'lockout', topic: 'good', partition: appended.partition, offset: appended.baseOffset, maxCount: 1 });
      const readBack = back !== undefined && new TextDecoder().decode(back.payload) === `good ${protocol} ${round}`;
      return { protocol, hostileOpen, connectMs, totalMs: performance.now() - started, readBack };
    } finally {
      await t.close();
    }
  } catch (error) {
    return { protocol, hostileOpen, connectMs, totalMs: performance.now() - started, readBack: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Fills the server with hostile sockets and times well-behaved clients against it. */
export async function runLockout(options: LockoutOptions): Promise<LockoutReport> {
  const maxConnections = options.server?.maxConnections ?? options.hostile;
  await using server = await startDevServer({ ...options.server, maxConnections });
  const attack = await (options.attack ?? startAttack)(server.port, options.hostile);
  let stats: AttackStats | undefined;
  const rounds: GoodRound[] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const fillStarted = performance.now();
  let fillMs = 0;
  try {
    const deadline = Date.now() + (options.fillTimeoutMs ?? 30_000);
    while (attack.open() < options.hostile * 0.95 && Date.now() < deadline) await sleep(50);
    fillMs = performance.now() - fillStarted;
    loop.enable();
    for (let r = 0; r < options.rounds; r++) {
      for (const protocol of ['vsr', 'classic'] as const) rounds.push(await goodRound(server, protocol, r, attack.open()));
      if (options.spacingMs !== undefined && options.spacingMs > 0) await sleep(options.spacingMs);
    }
  } finally {
    loop.disable();
    stats = await attack.stop();
  }
  return {
    hostile: options.hostile,
    maxConnections,
    ...stats,
    shed: server.shedCount(),
    rounds,
    fillMs: Math.round(fillMs),
    maxEventLoopDelayMs: Math.round(loop.max / 1e6),
    connectMs: summarize(rounds.filter((r) => r.error === undefined).map((r) => r.connectMs)),
    totalMs: summarize(rounds.filter((r) => r.error === undefined).map((r) => r.totalMs)),
  };
}

/** Figures of the partial-frame memory phase. */
export interface PartialFrameMemory {
  readonly sockets: number;
  /** Bytes each socket tried to send (after a prefix declaring a 64 MiB frame). */
  readonly triedBytesEach: number;
  /** Bytes the attacker managed to write before the server closed its sockets, all sockets. */
  readonly writtenBytes: number;
  /** Sockets the server closed. */
  readonly closedByServer: number;
  /** Growth of the process's ArrayBuffer memory and RSS over the baseline at the peak, MB. */
  readonly arrayBuffersGrowthMb: number;
  readonly rssGrowthMb: number;
}

/** 12 (or `sockets`) unauthenticated sockets each push a 64 MiB frame; the server must not keep it. */
export async function measurePartialFrames(sockets: number, server?: DevServerOptions): Promise<PartialFrameMemory> {
  await using dev = await startDevServer(server);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const base = process.memoryUsage();
  let peakArrayBuffers = base.arrayBuffers;
  let peakRss = base.rss;
  const sample = setInterval(() => {
    const m = process.memoryUsage();
    peakArrayBuffers = Math.max(peakArrayBuffers, m.arrayBuffers);
    peakRss = Math.max(peakRss, m.rss);
  }, 20);
  const tried = 64 * 1024 * 1024;
  let closedByServer = 0;
  let stopped = false;
  const stopTimer = setTimeout(() => (stopped = true), 20_000);
  try {
    const written = await Promise.all(
      Array.from({ length: sockets }, () =>
        new Promise<number>((resolve) => {
          const s = connect({ host: '127.0.0.1', port: dev.port });
          s.on('error', () => undefined);
          s.once('connect', () => {
            void pushPartial(s, partialFramePrefix(), tried, () => stopped).then((n) => {
              if (s.destroyed) closedByServer++;
              s.destroy();
              resolve(n);
            });
          });
        }),
      ),
    );
    return {
      sockets,
      triedBytesEach: tried,
      writtenBytes: written.reduce((a, b) => a + b, 0),
      closedByServer,
      arrayBuffersGrowthMb: Math.round(((peakArrayBuffers - base.arrayBuffers) / 1e6) * 10) / 10,
      rssGrowthMb: Math.round(((peakRss - base.rss) / 1e6) * 10) / 10,
    };
  } finally {
    clearInterval(sample);
    clearTimeout(stopTimer);
  }
}

/** Figures of the brute-force phase. */
export interface BruteForce {
  readonly durationMs: number;
  /** Connections the attacker opened (each closed by the server after its failure limit). */
  readonly connections: number;
  /** Answers by status: 42 = a password was checked and was wrong, 58 = refused unchecked (locked out). */
  readonly checked: number;
  readonly refused: number;
}

/**
 * One attacker address guesses classic passwords back to back for `durationMs`, one
 * connection at a time, reconnecting whenever the server closes it.
 */
export async function measureBruteForce(durationMs: number, server?: DevServerOptions): Promise<BruteForce> {
  await using dev = await startDevServer(server);
  const started = performance.now();
  let connections = 0;
  let checked = 0;
  let refused = 0;
  let n = 0;
  // Bounded by the duration: every pass is one connection.
  while (performance.now() - started < durationMs) {
    connections++;
    await new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: dev.port, localAddress: ATTACKER_HOST });
      const guess = (): void => {
        if (performance.now() - started >= durationMs) {
          socket.destroy();
          return;
        }
        socket.write(encodeClassicRequest(CommandCode.LoginUser, encodeLoginUserRequest({ username: 'iggy', password: `guess-${n++}` })));
      };
      let pending = new Uint8Array(0);
      socket.on('data', (chunk: Buffer) => {
        const joined = new Uint8Array(pending.length + chunk.length);
        joined.set(pending);
        joined.set(chunk, pending.length);
        let at = 0;
        // Failure answers are 8 bytes each ([status][length 0]).
        for (; at + 8 <= joined.length; at += 8) {
          const status = new DataView(joined.buffer, at, 8).getUint32(0, true);
          if (status === 58) refused++;
          else checked++;
          guess();
        }
        pending = joined.slice(at);
      });
      socket.on('error', () => undefined);
      socket.once('close', () => resolve());
      socket.once('connect', guess);
    });
  }
  return { durationMs, connections, checked, refused };
}

/**
 * Starts the attack in a child process (`attack-main.ts`), so only the server and the good
 * client share this process's event loop.
 */
export async function startAttackInChild(port: number, count: number): Promise<Attack> {
  const child = await startChild('attack-main.ts', [String(port), String(count)], 'STARTED');
  let open = 0;
  let stats: AttackStats | undefined;
  let buffered = '';
  child.process.stdout?.on('data', (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('OPEN ')) open = Number(line.slice(5));
      else if (line.startsWith('STATS ')) stats = JSON.parse(line.slice(6)) as AttackStats;
    }
  });
  return {
    open: () => open,
    stop: async () => {
      child.process.kill('SIGTERM');
      let timer: ReturnType<typeof setTimeout> | undefined;
      const gone = await Promise.race([exited(child.process).then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 30_000)))]);
      clearTimeout(timer);
      if (!gone) await kill(child.process);
      if (stats === undefined) throw new Error('the attack process exited without its figures');
      return stats;
    },
  };
}
