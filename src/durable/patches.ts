/**
 * Whether a run takes a patch's path (docs/changing-workflows.md, "The baseline"). A run that
 * recorded a baseline takes the path of every patch it covers without recording their markers:
 * one marker, and one TemporalChangeVersion upsert (a visibility write), per run instead of one
 * per patch. The baselines are asked newest first, so a new run records the newest alone. A run
 * that never recorded a baseline covering the patch (it started before) is asked as before: an
 * older baseline, then the patch itself, so its history replays as it was written; once such a
 * run executes live, the newest baseline answers yes, as `patched()` alone would. Sandbox-safe.
 */
import { patched } from '@temporalio/workflow';

import { BASELINES, type PatchId } from './versions.js';

export function has(id: PatchId): boolean {
  return BASELINES.some((b) => b.covers.has(id) && patched(b.id)) || patched(id);
}
