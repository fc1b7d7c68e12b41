// Factories of the projector's stages, for composition roots and end-to-end tests.
export { createBlockConsumer } from './consume/createBlockConsumer.ts';
export {
  type BatchOutcome,
  type BlockProjector,
  createBlockProjector,
} from './project/createBlockProjector.ts';
export { type BatchStep, planBatch } from './project/planBatch.ts';
