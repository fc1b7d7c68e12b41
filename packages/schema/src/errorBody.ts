import { z } from 'zod';

/** Every error answer of the gateway: 4xx `{message, details?}`; a 500 also names its request id. */
export const errorBody = z
  .object({
    message: z.union([z.string(), z.array(z.string())]),
    details: z.record(z.string(), z.unknown()).optional(),
    requestId: z.string().optional(),
  })
  .meta({ id: 'Error' });
