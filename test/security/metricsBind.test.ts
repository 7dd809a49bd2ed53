/**
 * Door: metrics. `/metrics` names accounts, queues and supplier error codes; it is for the
 * operator's scraper, not for whoever reaches the host. `dropflow worker` and `dropflow gateway`
 * bind it to loopback unless METRICS_HOST says otherwise, in words.
 */
import { describe, expect, it } from 'vitest';

import { loadConfig, metricsAddress } from '../../src/config/environment.js';

describe('the metrics endpoint', () => {
  it('listens on loopback when nothing is said, not on every interface', () => {
    expect(metricsAddress(loadConfig({}), 9464)).toBe('127.0.0.1:9464');
  });

  it('binds elsewhere only when the operator opts in with METRICS_HOST', () => {
    expect(metricsAddress(loadConfig({ METRICS_HOST: '0.0.0.0' }), 9465)).toBe('0.0.0.0:9465');
    expect(metricsAddress(loadConfig({ METRICS_HOST: '::1' }), 9464)).toBe('[::1]:9464');
  });
});
