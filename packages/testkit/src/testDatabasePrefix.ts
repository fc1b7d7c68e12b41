/** The prefix every database of run `runId` carries, so the run's teardown finds and drops them. */
export function testDatabasePrefix(runId: string): string {
  return `tt_${runId}_`;
}
