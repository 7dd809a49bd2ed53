/**
 * Smoke test of the foundation: the dev server started by test/setup/global.ts is reachable and
 * has dropflow's search attributes registered with the right types.
 */
import { Client, Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import {
  FulfillmentFlow,
  FulfillmentStage,
  NeedsAttention,
  OrderNumber,
  ParcelCodes,
  searchAttributeKeys,
  searchAttributeTypes,
  StoreEventsBehind,
  SupplierAccount,
  SlaBreached,
  SvcOrderId,
} from '../src/temporal/searchAttributes.js';

describe('Temporal dev server', () => {
  let connection: Connection;
  let client: Client;
  const namespace = inject('temporalNamespace');

  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection, namespace });
  });

  afterAll(async () => {
    await connection.close();
  });

  it("defines dropflow's nine search attributes", () => {
    expect(searchAttributeTypes).toEqual({
      FulfillmentStage: 'KEYWORD',
      OrderNumber: 'KEYWORD',
      SvcOrderId: 'KEYWORD',
      FulfillmentFlow: 'KEYWORD',
      NeedsAttention: 'BOOL',
      StoreEventsBehind: 'BOOL',
      SupplierAccount: 'KEYWORD',
      SlaBreached: 'KEYWORD_LIST',
      ParcelCodes: 'KEYWORD_LIST',
    });
    expect(searchAttributeKeys).toEqual([
      FulfillmentStage,
      OrderNumber,
      SvcOrderId,
      FulfillmentFlow,
      NeedsAttention,
      StoreEventsBehind,
      SupplierAccount,
      SlaBreached,
      ParcelCodes,
    ]);
  });

  it('answers on the provided address and namespace', async () => {
    const { namespaceInfo } = await client.workflowService.describeNamespace({ namespace });
    expect(namespaceInfo?.name).toBe(namespace);
  });

  it('has the search attributes registered with the right types', async () => {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({
      namespace,
    });
    for (const [name, type] of Object.entries(searchAttributeTypes)) {
      expect(customAttributes[name], name).toBe(encodeSearchAttributeIndexedValueType(type));
    }
  });
});
