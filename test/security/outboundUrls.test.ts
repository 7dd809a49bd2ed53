/**
 * Door: outbound URLs. dropflow sends API keys, tokens and signed store events to the URLs an
 * operator configures; a plain-http URL to another host would carry them across networks in
 * clear. Every outbound URL must be https://, unless its host is this machine (the sandbox, dev):
 * the environment, the account registry's file, its edits and `dropflow account` all refuse one,
 * naming the field and the rule, and write nothing (the command's refusal: outboundUrls.slow.test.ts).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { addAccount } from '../../src/accounts/registryEdits.js';
import { parseRegistry } from '../../src/accounts/registryFile.js';
import { loadConfig } from '../../src/config/environment.js';
import { OUTBOUND_URL_RULE, OutboundUrlError, outboundUrl } from '../../src/net/outboundUrl.js';

const PLAIN = 'http://supplier.example.com/api';

describe('the outbound URL rule', () => {
  it.each([
    PLAIN,
    'http://10.0.0.5:8080',
    'http://127.0.0.1.nip.io/',
    'http://localhost.attacker.example/',
    'ftp://supplier.example.com/',
    'not a url',
  ])('refuses %s, naming the field and the rule', (url) => {
    expect(() => outboundUrl(url, 'baseUrl')).toThrow(OutboundUrlError);
    expect(() => outboundUrl(url, 'baseUrl')).toThrow(`baseUrl: ${OUTBOUND_URL_RULE}`);
  });

  it.each([
    'https://supplier.example.com/api',
    'http://127.0.0.1:3000',
    'http://127.8.9.10/',
    'http://localhost:8080/events',
    'http://[::1]:9000/',
  ])('keeps %s (https, or plain http to loopback)', (url) => {
    expect(outboundUrl(url, 'baseUrl')).toBe(url);
  });
});

describe('plain-http URLs to another host are refused', () => {
  it.each(['SUPPLIER_BASE_URL', 'STORE_EVENTS_URL', 'CATALOGUE_EVENTS_URL'])(
    'in the environment: %s',
    (variable) => {
      expect(() => loadConfig({ [variable]: PLAIN })).toThrow(`${variable}: ${OUTBOUND_URL_RULE}`);
      expect(
        loadConfig({ [variable]: 'http://127.0.0.1:4010' })[variable as 'STORE_EVENTS_URL'],
      ).toBe('http://127.0.0.1:4010');
    },
  );

  it.each(['baseUrl', 'storeEventsUrl'])("in the registry's file: %s", (field) => {
    const file = JSON.stringify({
      version: 1,
      revision: 1,
      accounts: [
        { id: 'shop-a', tier: 1, apiKey: 'k', storeEventsSecret: 'whsec_x', [field]: PLAIN },
      ],
    });
    expect(() => parseRegistry('accounts.json', file)).toThrow(
      `accounts[0].${field}: ${OUTBOUND_URL_RULE}`,
    );
  });

  describe('in registry edits', () => {
    let dataDir: string;
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'dropflow-outbound-'));
    });

    it.each(['baseUrl', 'storeEventsUrl'] as const)('%s, and nothing is written', async (field) => {
      const config = loadConfig({ DROPFLOW_DATA_DIR: dataDir });
      await expect(
        addAccount(config, 'shop-a', { tier: 1, apiKey: 'key', [field]: PLAIN }),
      ).rejects.toMatchObject({ issues: [{ field, rule: OUTBOUND_URL_RULE }] });
      await expect(readFile(join(dataDir, 'accounts.json'), 'utf8')).rejects.toMatchObject({
        code: 'ENOENT',
      });
    });
  });
});
