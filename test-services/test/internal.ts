/** The internal secret every service of a test shares (their gRPC calls authenticate with it). */
export const INTERNAL_SECRET = 'test-internal-secret-of-at-least-32-chars';

/** A loopback port nothing listens on (the discard port): a peer a test leaves out. */
export const NO_PEER = '127.0.0.1:9';
