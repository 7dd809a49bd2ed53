/**
 * Registers dropflow's search attributes on a self-hosted Temporal cluster (the dev server gets
 * them at start). Idempotent: present ones are left alone; one of the right name but another type
 * is an error a person must resolve. Temporal Cloud registers them through its own console or
 * `tcld`, not this API. The workers check at start that the namespace has them all.
 */
import type { ConnectionLike } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';

import type { Logger } from '../telemetry/log.js';
import { searchAttributeTypes } from './searchAttributes.js';

export interface RegisteredSearchAttributes {
  added: string[];
  present: string[];
}

export async function registerSearchAttributes(
  connection: ConnectionLike,
  namespace: string,
): Promise<RegisteredSearchAttributes> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const added: string[] = [];
  const present: string[] = [];
  const missing: Record<
    string,
    NonNullable<ReturnType<typeof encodeSearchAttributeIndexedValueType>>
  > = {};
  for (const [name, type] of Object.entries(searchAttributeTypes)) {
    const wanted = encodeSearchAttributeIndexedValueType(type)!;
    const existing = customAttributes[name];
    if (existing === undefined) {
      missing[name] = wanted;
      added.push(name);
    } else if (existing !== wanted) {
      throw new Error(
        `search attribute ${name} exists in namespace ${namespace} with another type; dropflow needs ${type}`,
      );
    } else {
      present.push(name);
    }
  }
  if (added.length > 0) {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  }
  return { added, present };
}

/** A search attribute dropflow needs that the namespace lacks, or has with another type. */
export interface SearchAttributeMismatch {
  name: string;
  wanted: SearchAttributeType;
  /** The type the namespace has under that name; undefined: not registered. */
  found?: SearchAttributeType | 'unknown';
}

/** Temporal's own names of the types (as its CLI and Cloud's console show them). */
const TYPE_NAMES: Record<SearchAttributeType, string> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/** dropflow's search attributes that `namespace` lacks or has with another type. */
export async function searchAttributeMismatches(
  connection: ConnectionLike,
  namespace: string,
): Promise<SearchAttributeMismatch[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const byCode = new Map(
    Object.values(SearchAttributeType).map((t) => [encodeSearchAttributeIndexedValueType(t), t]),
  );
  const mismatches: SearchAttributeMismatch[] = [];
  for (const [name, wanted] of Object.entries(searchAttributeTypes)) {
    const existing = customAttributes[name];
    if (existing === undefined) mismatches.push({ name, wanted });
    else if (existing !== encodeSearchAttributeIndexedValueType(wanted)) {
      mismatches.push({ name, wanted, found: byCode.get(existing) ?? 'unknown' });
    }
  }
  return mismatches;
}

export function missingSearchAttributesMessage(
  namespace: string,
  mismatches: readonly SearchAttributeMismatch[],
): string {
  const list = mismatches
    .map(
      (m) =>
        `${m.name} (${TYPE_NAMES[m.wanted]}` +
        (m.found === undefined
          ? ')'
          : `; registered as ${m.found === 'unknown' ? 'another type' : TYPE_NAMES[m.found]})`),
    )
    .join(', ');
  return `refusing to start: namespace ${namespace} lacks search attributes ${list}; run "dropflow setup" (self-hosted) or add them in Temporal Cloud first`;
}

/**
 * The workers' start check: a workflow that upserts a search attribute its namespace lacks fails
 * its task and stops, so workers refuse to start without all of dropflow's. When the namespace's
 * attributes cannot be listed (an API key without that permission), they start with a warning.
 */
export async function requireSearchAttributes(
  connection: ConnectionLike,
  namespace: string,
  log: Pick<Logger, 'warn'>,
): Promise<void> {
  let mismatches: SearchAttributeMismatch[];
  try {
    mismatches = await searchAttributeMismatches(connection, namespace);
  } catch (err) {
    log.warn(
      { namespace, err },
      "could not list the namespace's search attributes: starting without checking them",
    );
    return;
  }
  if (mismatches.length > 0) throw new Error(missingSearchAttributesMessage(namespace, mismatches));
}
