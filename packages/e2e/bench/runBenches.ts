import { runBenchScripts } from '@tributary/testkit/bench';

// `pnpm bench [name]`: every *.bench.ts in this folder (BENCH_SECONDS shortens the timed ones).
runBenchScripts(new URL('./', import.meta.url), process.argv[2]);
