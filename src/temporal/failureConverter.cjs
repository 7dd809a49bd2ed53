// The failure converter of every dropflow process that encrypts payloads (see encryption.ts).
// Failure messages and stack traces (which may echo what the supplier was sent, an address
// included) move into the failure's encoded attributes, a payload the codec encrypts; history
// keeps "Encoded failure" in their place.
//
// CommonJS on purpose: the Temporal SDK `require`s this file by path in Node (clients and
// activity workers, where no TypeScript loader hooks `require`) and bundles it into the workflow
// code, so it must load without a build step in both.
'use strict';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS on purpose (above)
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
