/**
 * `dropflow gateway`: the HTTP gateway (docs/architecture.md §16) of one supplier account against a
 * Temporal server — supplier webhooks in (`POST /webhooks/supplier`), order intake for upstream
 * systems (`/v1/orders`, bearer GATEWAY_TOKEN), `/healthz` and `/readyz`, and with encrypted
 * payloads the Temporal UI's codec server (`/codec`, CODEC_TOKEN or CODEC_CORS_ORIGIN) — until
 * SIGINT/SIGTERM. Stateless: run as many as you like behind a load balancer.
 */
import type { Command } from 'commander';

import { watchAccountDirectory } from '../../accounts/registry.js';
import {
  checkoutSettings,
  intakeLimits,
  loadConfig,
  metricsAddress,
} from '../../config/environment.js';
import { startGateway } from '../../gateway/server.js';
import { createLogger } from '../../telemetry/log.js';
import { portOption, untilSignal } from '../options.js';
import { installRuntimeLogger, shutdownRuntime } from '../../temporal/runtimeLogger.js';
import { SessionTokenSource } from '../../session/sessionTokens.js';
import { startTracing } from '../../temporal/tracing.js';
import {
  connectTemporal,
  insecureOption,
  requirePayloadCodec,
  temporalOptions,
  type TemporalFlags,
} from '../temporal.js';

interface GatewayFlags extends TemporalFlags {
  insecure: boolean;
  port?: number;
  host?: string;
  metricsPort?: number;
}

export function register(program: Command): void {
  temporalOptions(
    insecureOption(program.command('gateway'))
      .description('run the HTTP gateway: supplier webhooks in, order intake for upstream systems')
      .option('--port <n>', 'port (env GATEWAY_PORT, default 8080)', portOption)
      .option('--host <address>', 'address to listen on (env GATEWAY_HOST, default 127.0.0.1)')
      .option(
        '--metrics-port <n>',
        'Prometheus metrics of the gateway on this port, /metrics (env GATEWAY_METRICS_PORT, default 9465; 0 = off)',
        portOption,
      ),
    { queues: true },
  ).action(async (flags: GatewayFlags) => {
    const config = loadConfig();
    // First: nothing starts that would store payloads in clear unless told to.
    await requirePayloadCodec(config, 'gateway', flags.insecure);
    const log = createLogger('gateway');
    // Before the Temporal client is made: it takes its interceptors from it.
    const tracing = startTracing({ service: 'dropflow-gateway' });
    log.info(tracing === undefined ? 'tracing off (no OTLP endpoint)' : 'tracing on (OTLP)');
    const metricsPort = flags.metricsPort ?? config.GATEWAY_METRICS_PORT;
    // The gateway needs the SDK's native runtime only to export its metrics (installed once per
    // process, before anything else touches it); without it the metrics go nowhere.
    if (metricsPort !== 0) {
      installRuntimeLogger(undefined, { metricsAddress: metricsAddress(config, metricsPort) });
    }
    // The account registry, followed: which accounts an order may name, which store tokens act on them.
    const accounts = await watchAccountDirectory(config, log);
    const temporal = await connectTemporal(flags);
    // The signing key: given, or the openId the account's session workflow learned with its token.
    const tokens = new SessionTokenSource(temporal.client, temporal.target.queues);
    const openId = config.WEBHOOK_OPEN_ID ?? (() => tokens.openId());
    try {
      const gateway = await startGateway({
        temporalClient: temporal.client,
        queues: temporal.target.queues,
        openId,
        checkout: checkoutSettings(config),
        marginDefault: config.MARGIN_RULE,
        checkoutOrderBoundMs: config.CHECKOUT_ORDER_BOUND_MS,
        intakeLimits: intakeLimits(config),
        intakeToken: config.GATEWAY_TOKEN,
        accounts,
        stores: accounts,
        log,
        port: flags.port ?? config.GATEWAY_PORT,
        host: flags.host ?? config.GATEWAY_HOST,
        ...(temporal.codec !== undefined && {
          codec: {
            codec: temporal.codec,
            corsOrigins: config.CODEC_CORS_ORIGIN,
            token: config.CODEC_TOKEN,
          },
        }),
      });
      const codec =
        gateway.codecUrl !== undefined
          ? `; codec ${gateway.codecUrl}`
          : temporal.codec === undefined
            ? ''
            : '; codec routes off: without CODEC_TOKEN they are served on a loopback address only';
      const metrics = metricsPort === 0 ? '' : `; metrics :${metricsPort}/metrics`;
      // Listening before saying so: a stop asked right after the line must find the handler.
      const stopAsked = untilSignal();
      process.stdout.write(
        `gateway: ${gateway.url} (webhooks ${gateway.webhookUrl}; intake ${gateway.url}/v1/orders${codec}${metrics}) ` +
          `on ${temporal.target.address} (namespace ${temporal.target.namespace}, queues ${temporal.target.queues.orders})\n`,
      );
      const signal = await stopAsked;
      log.info({ signal }, 'stopping');
      await gateway.close();
    } finally {
      accounts.close();
      await temporal.close();
      await shutdownRuntime();
    }
  });
}
