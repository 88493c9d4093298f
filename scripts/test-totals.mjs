// The totals line of `npm test` (`N passed, M failed, K skipped`), computed from vitest's JSON report.
//
// A file can fail without a failing test: it did not load, or a beforeAll/afterAll hook threw (vitest then marks
// its tests skipped). Each such file counts as one failure, and a run that exited non-zero never reads "0 failed".

/**
 * @param {{ numPassedTests: number, numFailedTests: number, numPendingTests: number, numTodoTests: number,
 *   testResults: Array<{ status: string, assertionResults: Array<{ status: string }> }> }} report
 * @param {number} exitCode vitest's exit status
 * @returns {string}
 */
export function totalsLine(report, exitCode) {
  const skipped = report.numPendingTests + report.numTodoTests;
  const failedFilesWithoutFailedTest = report.testResults.filter(
    (file) => file.status === "failed" && !file.assertionResults.some((test) => test.status === "failed"),
  ).length;
  let failed = report.numFailedTests + failedFilesWithoutFailedTest;
  if (exitCode !== 0 && failed === 0) failed = 1;
  return `${report.numPassedTests} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : "");
}
