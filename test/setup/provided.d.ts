// Values that test/setup/global.ts hands to every test file through `inject(…)`.
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `host:port` of the one Temporal dev server of this test run. */
    temporalAddress: string;
    /** Its namespace (search attributes of src/temporal/searchAttributes.ts registered). */
    temporalNamespace: string;
    /** Base URL of the one supplier sandbox of this test run (started in global.ts). */
    sandboxUrl: string;
    /** The run's folder of shared workflow bundles (test/support/bundles.ts). */
    workflowBundleDir: string;
  }
}
