/**
 * The supplier's rule for webhook callbacks (docs/supplier-api.md §12.1): HTTPS and publicly
 * reachable; localhost and 127.0.0.1 are refused with 1607001. The sandbox enforces it and the
 * gateway's registration checks it before asking, from this one place.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addSubnet('0.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addAddress('::', 'ipv6');

const PRIVATE = new BlockList();
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('169.254.0.0', 16, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
PRIVATE.addSubnet('fe80::', 10, 'ipv6');

/** Why the supplier would refuse this callback address, or undefined when it would take it. */
export function callbackRefusal(url: URL): string | undefined {
  if (url.protocol !== 'https:') return `${url.href} does not use https`;
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return `${host} is not publicly reachable (localhost and 127.0.0.1 are refused)`;
  }
  const family = isIP(host);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(host, type)) {
    return `${host} is a loopback or private address (loopback: localhost and 127.0.0.1 are refused), not publicly reachable`;
  }
  if (PRIVATE.check(host, type)) {
    return `${host} is a loopback or private address (private network), not publicly reachable`;
  }
  return undefined;
}
