// Loaded into a benchmark's dev server child process (`node --import`): answers a `cpu` message
// on the IPC channel with the process's own CPU time, so the benchmark can bill server work to a
// phase at microsecond resolution (the /proc tick is 10 ms, longer than many phases).
if (typeof process.send === 'function') {
  process.on('message', (message: unknown) => {
    if (message !== 'cpu') return;
    const used = process.cpuUsage();
    process.send?.({ cpuMicros: used.user + used.system });
  });
  // the IPC channel must not keep a server alive that was asked to stop
  process.channel?.unref();
}
