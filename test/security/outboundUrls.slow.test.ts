/**
 * Door: outbound URLs, at the `dropflow` command (outboundUrls.test.ts has the rule and the rest):
 * `dropflow account add` refuses a plain-http URL to another host, naming the field and the rule,
 * and never the key. It starts the command, hence the slow suite.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { OUTBOUND_URL_RULE } from '../../src/net/outboundUrl.js';
import { runDropflow } from '../support/cli.js';

const PLAIN = 'http://supplier.example.com/api';

describe('plain-http URLs to another host are refused', () => {
  describe('in registry edits', () => {
    it('by `dropflow account add --base-url`', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'dropflow-outbound-'));
      const run = await runDropflow(
        ['account', 'add', 'shop-b', '--tier', '1', '--api-key-env', 'KEY', '--base-url', PLAIN],
        { env: { DROPFLOW_DATA_DIR: dataDir, KEY: 'key' } },
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`baseUrl: ${OUTBOUND_URL_RULE}`);
      expect(run.stderr).not.toContain('key');
    });
  });
});
