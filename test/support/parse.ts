// The service's envelope parsed as intake.ts parses it (for tests of the envelope's rules).
import { parseEnvelope, type ParsedDelivery } from '../../nodes/shared/webhook/envelope';

export function parseDelivery(raw: Buffer | string): ParsedDelivery {
	return parseEnvelope(Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8'));
}
