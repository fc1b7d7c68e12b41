import { TOPICS } from '@tributary/schema';

export type Topics = { readonly [K in keyof typeof TOPICS]: string };

/**
 * The deployment's topic names: the contract's names (packages/schema `TOPICS`) under an optional
 * prefix (per environment, per test run). The one place a topic name is built.
 */
export function topicsFor(prefix: string): Topics {
  return {
    blocks: `${prefix}${TOPICS.blocks}`,
    streamChanges: `${prefix}${TOPICS.streamChanges}`,
    deadLetters: `${prefix}${TOPICS.deadLetters}`,
  };
}
