/**
 * Whether a run takes a patch's path (docs/changing-workflows.md, "The baseline"). A run that
 * recorded `Patch.Baseline` takes the path of every patch it covers without recording their
 * markers: one marker, and one TemporalChangeVersion upsert (a visibility write), per run instead
 * of one per patch. A run that never recorded it (it started before) is asked each patch as
 * before, so its history replays as it was written; once such a run executes live, both answers
 * are yes, as `patched()` alone would answer. Sandbox-safe.
 */
import { patched } from '@temporalio/workflow';

import { BASELINE_COVERS, Patch, type PatchId } from './versions.js';

export function has(id: PatchId): boolean {
  return (BASELINE_COVERS.has(id) && patched(Patch.Baseline)) || patched(id);
}
