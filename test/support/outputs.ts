// The trigger's output names and Unrecognised's index, derived from the production table for tests.
import { CONSENT_EVENTS, EVENTS } from '../../nodes/shared/webhook/events';

/** Every possible output, in output order: the events, then Unrecognised. */
export const OUTPUT_TABLE = EVENTS.outputTable();

export const OUTPUT_NAMES: readonly string[] = OUTPUT_TABLE.map((output) => output.name);

export const UNRECOGNISED_INDEX = CONSENT_EVENTS.length;
