/** The one intake of both webhook entry points: the facts decide.ts answers on; it answers nothing. */
import type { IWebhookFunctions } from 'n8n-workflow';
import { serverClosing } from '../n8n-compat';
import { FACTS, type Facts } from './decide';
import {
	bodyText,
	checkFreshness,
	isCloudEventsBatch,
	parseEnvelope,
	type ParsedDelivery,
} from './envelope';
import type { HeaderBag } from './signature';
import { verifiedDelivery, type VerifiedDelivery } from './verify';

/** A delivery without a signed id is keyed on its signed bytes, one key per active secret (all recorded). */
function withSignedKey(delivery: ParsedDelivery, verified: VerifiedDelivery): ParsedDelivery {
	if (delivery.deliveryKey !== null) return delivery;
	const [key, ...also] = verified.bodyKeys();
	return { ...delivery, deliveryKey: key ?? null, otherKeys: { also } };
}

export interface Intake {
	facts: Facts;
	/** Verified; its duplicate key comes from signed bytes only. */
	taken?: { delivery: ParsedDelivery; verified: VerifiedDelivery };
}

export async function intake(
	ctx: IWebhookFunctions,
	entry: Facts['entry'],
	rules: { maxAgeSeconds: number },
): Promise<Intake> {
	const req = ctx.getRequestObject() as unknown as { headers?: HeaderBag };
	// a stopping process takes nothing: what it accepted could be cut off before it is stored
	if (serverClosing(req)) return { facts: { ...FACTS, entry, closing: true } };
	const verified = await verifiedDelivery(ctx);
	if (verified === undefined) return { facts: { ...FACTS, entry } };
	const parsed = parseEnvelope(verified.rawBody);
	const freshness = checkFreshness(parsed, rules.maxAgeSeconds, Date.now());
	const facts: Facts = {
		...FACTS,
		entry,
		verified: true,
		batch: isCloudEventsBatch(req.headers),
		delivery: {
			event: parsed.event,
			webhookId: parsed.webhookId,
			recognised: parsed.kind === 'event',
			...(parsed.kind !== 'event' && {
				reason: parsed.reason,
				// only the resume URL's answer reports it; the trigger decodes the body once, for its item
				...(entry === 'resume' && { size: bodyText(verified.rawBody).length }),
			}),
		},
		stale: freshness === 'stale' || freshness === 'unparsable',
	};
	return { facts, taken: { delivery: withSignedKey(parsed, verified), verified } };
}
