/**
 * The intake's bearer token (GATEWAY_TOKEN), compared in constant time: both sides are hashed
 * first, so neither the length nor a prefix of the token leaks through timing. Without a
 * configured token every request is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export type BearerCheck = (authorization: string | undefined) => boolean;

export function bearerCheck(token: string | undefined): BearerCheck {
  if (token === undefined || token === '') return () => false;
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
}
