/**
 * SQL for the id of an address (address_ids, migration 080), the key of the wallet indexes of
 * `transfers`: a scalar subquery, run once per statement (an InitPlan) and used as an index
 * condition. NULL when the address has none, which no row matches: it never took part in a
 * transfer. `chain` and `address` are placeholders (bigint, bytea).
 */
export const addressIdSql = (chain: string, address: string): string =>
  `(SELECT id FROM address_ids WHERE chain_id = ${chain} AND address = ${address})`;
