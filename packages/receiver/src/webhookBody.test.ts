import type * as contract from '@tributary/schema';
import { expectTypeOf, it } from 'vitest';
import type * as kit from './webhookBody.ts';

// The kit's copy of the body types and those the contract infers (packages/schema, which types the
// sender's builders) are the same shape: a field added to one and not the other fails the
// typecheck (and this test). Item by item first, so that a failure names the item.
it('types the body exactly as the contract does', () => {
  expectTypeOf<kit.WebhookLog>().toEqualTypeOf<contract.WebhookLog>();
  expectTypeOf<kit.WebhookTx>().toEqualTypeOf<contract.WebhookTx>();
  expectTypeOf<kit.WebhookInternalTx>().toEqualTypeOf<contract.WebhookInternalTx>();
  expectTypeOf<kit.WebhookErc20Transfer>().toEqualTypeOf<contract.WebhookErc20Transfer>();
  expectTypeOf<kit.WebhookErc20Approval>().toEqualTypeOf<contract.WebhookErc20Approval>();
  expectTypeOf<kit.WebhookNftTransfer>().toEqualTypeOf<contract.WebhookNftTransfer>();
  expectTypeOf<kit.WebhookNftApproval>().toEqualTypeOf<contract.WebhookNftApproval>();
  expectTypeOf<kit.WebhookErc721Approval>().toEqualTypeOf<contract.WebhookErc721Approval>();
  expectTypeOf<kit.WebhookErc1155Approval>().toEqualTypeOf<contract.WebhookErc1155Approval>();
  expectTypeOf<kit.NativeBalance>().toEqualTypeOf<contract.NativeBalance>();
  expectTypeOf<kit.TriggerResult>().toEqualTypeOf<contract.TriggerResult>();
  expectTypeOf<kit.WebhookBody>().toEqualTypeOf<contract.WebhookBody>();
});
