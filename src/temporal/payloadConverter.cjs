// The payload converter of every dropflow process that encrypts payloads (see encryption.ts and
// inboundGuard.ts). It converts as the SDK's default does, and notes for the last conversions
// whether their payload arrived unencrypted: the worker's codec marks such payloads
// (UNENCRYPTED_METADATA) before they reach the workflow, and the workflow's inbound guard asks,
// right after the SDK converted a signal's, an update's or a start's arguments (the SDK calls the
// inbound interceptors synchronously after that conversion, nothing converts in between), whether
// one of them did.
//
// CommonJS on purpose, as failureConverter.cjs: the SDK `require`s it by path in Node and bundles
// it into the workflow code, where each workflow has its own copy of the module.
'use strict';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS on purpose (above)
const { defaultPayloadConverter } = require('@temporalio/common');

const UNENCRYPTED_METADATA = 'dropflow-unencrypted';
/** More than any handler's arguments. */
const KEPT = 32;
/** Whether each of the latest conversions read an unencrypted payload, oldest first. */
const latest = [];

exports.UNENCRYPTED_METADATA = UNENCRYPTED_METADATA;

exports.payloadConverter = {
  toPayload(value, context, hint) {
    return defaultPayloadConverter.toPayload(value, context, hint);
  },
  fromPayload(payload, context, hint) {
    latest.push(payload.metadata != null && payload.metadata[UNENCRYPTED_METADATA] != null);
    if (latest.length > KEPT) latest.shift();
    return defaultPayloadConverter.fromPayload(payload, context, hint);
  },
};

/** Whether one of the last `count` payloads converted arrived unencrypted. */
exports.unencryptedAmongLast = (count) =>
  count > 0 && latest.slice(-Math.min(count, KEPT)).some(Boolean);
