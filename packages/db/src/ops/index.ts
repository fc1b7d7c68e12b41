export { acknowledgeDeadLetters, deadLettersAcknowledgedAt } from './deadLetterAcks.ts';
