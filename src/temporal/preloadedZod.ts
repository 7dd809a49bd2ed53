/**
 * Preloaded into every workflow bundle (workflowBundle.ts): requiring this module evaluates zod
 * once per worker, into the modules its workflows share. zod declares itself free of side
 * effects, so the bundler would drop a bare `require('zod')`; using it keeps it. zod sets its
 * default locale and memoizer in its shared config when the first schema is built and used: done
 * here, before the shared modules are frozen, or a workflow's first schema would fail to set them.
 */
import { z } from 'zod';

export const preloaded = z.object({ id: z.string().min(1) }).safeParse({ id: '' }).success;
