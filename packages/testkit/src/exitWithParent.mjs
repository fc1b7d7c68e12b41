// Loaded into a service spawned by a test (`node --import <this file> ...`, see launchNode.ts): the
// test process holds the write end of this process's stdin pipe, and the kernel closes it when the
// test process dies, however it dies (SIGKILL included). On that EOF the service stops as on SIGTERM
// (graceful, under its shutdown deadline) and is killed outright if it is still alive after 30 s.
// A service started any other way never loads this file.
const stdin = process.stdin;
stdin.on('end', () => {
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), 30_000).unref();
});
stdin.on('error', () => {});
stdin.resume();
// Watching must not keep a service alive that would otherwise have exited.
stdin.unref?.();
