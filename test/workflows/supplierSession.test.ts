/**
 * The account's session workflow with payloads in clear, as the order harness runs it (so that
 * `npm run histories:record` keeps a history of it for the replay test): two processes asking at
 * once start one session and get one token; a report of a token the supplier refused renews it
 * once, a report of an older token is answered with the current one.
 */
import { expect, it } from 'vitest';

import { sessionQuery, supplierSessionId } from '../../src/session/contract.js';
import { SessionTokenSource } from '../../src/session/sessionTokens.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { expireTokens } from '../sandbox/controls.js';
import { nameScenario } from '../support/histories.js';
import { useOrderHarness } from '../support/orders.js';
import { accountStats } from '../support/sandbox.js';

const h = useOrderHarness('session');

it('hands one token to every process and renews a refused one once', async () => {
  const sessionId = supplierSessionId(queuePrefix(h.queues));
  nameScenario(sessionId);
  const [a, b] = [
    new SessionTokenSource(h.client, h.queues),
    new SessionTokenSource(h.client, h.queues),
  ];
  const [first, same] = await Promise.all([a.accessToken(), b.accessToken()]);
  expect(same).toBe(first);
  expect(await a.openId()).toBe(h.account.openId);

  await expireTokens(h.account.openId);
  a.invalidate(first);
  b.invalidate(first);
  const renewed = await a.accessToken();
  expect(renewed).not.toBe(first);
  // b reports the same, older token: answered with the current one, no second refresh.
  expect(await b.accessToken()).toBe(renewed);

  const view = await h.client.workflow.getHandle(sessionId).query(sessionQuery);
  expect(view).toMatchObject({ hasToken: true, renewals: 2 });
  const stats = await accountStats(h.account.openId);
  expect(stats.tokensObtained).toBe(1);
  expect(stats.tokensRefreshed).toBe(1);
  // Spaced as the token endpoints ask: nothing refused on the way.
  expect(stats.rateLimited).toBe(0);
});
