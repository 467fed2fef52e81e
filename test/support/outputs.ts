// The trigger's output names and Unrecognised's index, derived from the production table for tests.
import { CONSENT_EVENTS, OUTPUT_TABLE } from '../../nodes/shared/webhook/events';

export { OUTPUT_TABLE };

export const OUTPUT_NAMES: readonly string[] = OUTPUT_TABLE.map((output) => output.name);

export const UNRECOGNISED_INDEX = CONSENT_EVENTS.length;
