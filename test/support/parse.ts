// The service's envelope parsed as intake.ts parses it (for tests of the envelope's rules).
import {
	MAX_DEPTH,
	SCANNED_MEMBERS,
	parseEnvelope,
	type ParsedDelivery,
} from '../../nodes/shared/webhook/envelope';
import { scanBody } from '../../nodes/shared/webhook/json-scan';

export function parseDelivery(raw: Buffer | string): ParsedDelivery {
	const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8');
	return parseEnvelope(scanBody(bytes, SCANNED_MEMBERS, MAX_DEPTH));
}
