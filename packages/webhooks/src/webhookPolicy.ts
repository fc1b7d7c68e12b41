/**
 * Where webhooks may go: the operator's settings (ALLOW_PRIVATE_WEBHOOK_URLS, WEBHOOK_REQUIRE_HTTPS,
 * WEBHOOK_ALLOWED_PORTS), held by the gateway (test webhooks) and the sender (deliveries) alike.
 */
export interface WebhookPolicy {
  /** Private, loopback and link-local addresses allowed (tests, the local devnet). */
  allowPrivate: boolean;
  /** http: URLs refused. */
  requireHttps: boolean;
  /** The ports a webhook URL may name (its scheme's default when it names none); empty: any. */
  allowedPorts: readonly number[];
}

/** Why a webhook is refused, in words a client may read: never a resolved address. */
export type RefusalReason =
  | 'not a valid URL'
  | 'not an http(s) URL'
  | 'https is required'
  | 'the port is not allowed'
  | 'the address is not allowed';
