#!/usr/bin/env node
// Completes package-lock.json with the other platforms' native packages of @swc/core and
// unrs-resolver. The registry this project installs from serves only the packages for the
// platforms it builds on, so `npm install` leaves those optional packages out of the lock file,
// and `npm ci` then refuses the lock as out of sync. An entry with the package's os/cpu tells
// `npm ci` to skip it here (as it would on any other platform) without fetching it.
// Run after any `npm install` that rewrites the lock: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;

/** `darwin-arm64`, `linux-x64-gnu`, `win32-ia32-msvc`, `wasm32-wasi` → os, cpu, libc. */
function platformOf(name) {
  const tail = name
    .split('/')
    .pop()
    .replace(/^(core|resolver-binding)-/, '');
  const [os, cpu, abi] = tail.split('-');
  if (os === 'wasm32') return { cpu: ['wasm32'] };
  const entry = { os: [os], cpu: [cpu === 'arm' || cpu === 'armv7' ? 'arm' : cpu] };
  if (abi === 'gnu' || abi === 'gnueabihf') entry.libc = ['glibc'];
  if (abi === 'musl' || abi === 'musleabihf') entry.libc = ['musl'];
  return entry;
}

let added = 0;
for (const [path, pkg] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    if (!/^@swc\/core-|^@unrs\/resolver-binding-/.test(dep)) continue;
    const key = `node_modules/${dep}`;
    if (packages[key] || packages[`${path}/${key}`]) continue;
    packages[key] = { version, optional: true, ...platformOf(dep) };
    added += 1;
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`package-lock.json: ${added} platform entries added\n`);
