import type { WebhookBody as SentBody } from '@tributary/webhooks';
import { expectTypeOf, it } from 'vitest';
import type { WebhookBody } from './webhookBody.ts';

// The kit's copy of the body types and the sender's are the same shape: a field added to one and
// not the other fails the typecheck (and this test).
it('types the body exactly as the sender does', () => {
  expectTypeOf<WebhookBody>().toEqualTypeOf<SentBody>();
});
