// The node:test bridge (src/node-test.mjs).
export interface SuiteOptions {
  /** --toolcall-provider */
  provider: string;
  /** --toolcall-command, e.g. "npx pytest-toolcall-node chat=./dist/adapter.js#complete" */
  command?: string;
  /** more pytest arguments, e.g. ["--toolcall-cases=wire.*"] */
  args?: string[];
  /** the Python with pytest-toolcall installed (default: $PYTHON, then "python") */
  python?: string;
  cwd?: string;
}
export interface CaseRecord {
  id: string; nodeid: string; outcome: string; clause: string | null; level: "must" | "should" | null;
  message: string | null; hint: string | null; [key: string]: unknown;
}
export declare function runSuite(options: SuiteOptions): Promise<{
  status: number | null; output: string; report: { cases: CaseRecord[]; [key: string]: unknown } | null;
}>;
export declare function caseMessage(record: CaseRecord): string;
/** Run the suite once, then declare one node:test test per case. */
export declare function toolcallSuite(options: SuiteOptions): Promise<void>;
