import type { PayloadConverter } from '@temporalio/common';

export declare const UNENCRYPTED_METADATA: string;
export declare const payloadConverter: PayloadConverter;
export declare function unencryptedAmongLast(count: number): boolean;
