/**
 * Door 1 of issue 28: docker-compose.yml published Temporal's frontend (7233) and its UI on every
 * interface, without authentication: whoever reached the host could signal, update or cancel any
 * tenant's orders past every check the gateway makes. As shipped, only the gateway is published;
 * the UI listens on the host's loopback unless the operator says otherwise; the processes that
 * hold payloads cannot start without the encryption key.
 */
import { describe, expect, it } from 'vitest';

import { interpolate, publishedPort, readCompose } from '../support/compose.js';

const { services } = readCompose('docker-compose.yml');

describe('docker-compose.yml, as shipped', () => {
  it('refuses a stranger on the network a Temporal port: the frontend is not published', () => {
    expect(services['temporal']?.ports).toBeUndefined();
    for (const [name, s] of Object.entries(services)) {
      for (const spec of s.ports ?? []) {
        expect(publishedPort(spec).target, `${name} publishes ${spec}`).not.toBe('7233');
      }
    }
  });

  it('refuses a stranger the UI: it listens on the host loopback unless TEMPORAL_UI_HOST says', () => {
    const ports = services['temporal-ui']?.ports ?? [];
    expect(ports).toHaveLength(1);
    const hostOf = (given: Record<string, string>) =>
      publishedPort(interpolate(ports[0]!, given)).host;
    expect(hostOf({})).toBe('127.0.0.1');
    expect(hostOf({ TEMPORAL_UI_HOST: '10.0.0.5' })).toBe('10.0.0.5');
  });

  it('publishes on every interface only the gateway', () => {
    const everywhere = Object.entries(services).flatMap(([name, s]) =>
      (s.ports ?? []).filter((p) => publishedPort(interpolate(p, {})).host === '').map(() => name),
    );
    expect(everywhere).toEqual(['dropflow-gateway']);
  });

  it('refuses to run the worker and the gateway without an encryption key, or with a default one', () => {
    for (const name of ['dropflow-worker', 'dropflow-gateway']) {
      const s = services[name]!;
      expect(String(s.environment?.['DROPFLOW_ENCRYPTION_KEY']), name).toMatch(
        /^\$\{DROPFLOW_ENCRYPTION_KEY:\?[^}]+\}$/,
      );
      expect(s.command, name).not.toContain('--insecure');
    }
  });
});
