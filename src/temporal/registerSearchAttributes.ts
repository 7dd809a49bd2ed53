/**
 * Registers dropflow's search attributes on a self-hosted Temporal cluster (the dev server gets
 * them at start). Idempotent: present ones are left alone; one of the right name but another type
 * is an error a person must resolve. Temporal Cloud registers them through its own console or
 * `tcld`, not this API.
 */
import type { ConnectionLike } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
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
