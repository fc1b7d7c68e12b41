export * from './primitives.ts';
export * from './blockEvent.ts';
export * from './streamChange.ts';
