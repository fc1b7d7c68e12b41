import { streamState } from '@tributary/schema';
import { z } from 'zod';
import { streamBody } from './streamConfig.ts';

/** A stream as the gateway answers it: the stored body echoed, plus id, status and statusMessage. */
export const streamResponse = streamBody.extend(streamState.shape).meta({ id: 'Stream' });

/** GET /streams/evm: a page of streams; no cursor on the last page. */
export const streamPage = z.object({
  result: z.array(streamResponse),
  total: z.number().int(),
  cursor: z.string().optional(),
});
