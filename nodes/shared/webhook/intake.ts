/**
 * The one intake of a delivery, shared by the Consent Flow Trigger and Create and Wait for
 * Outcome: the same refusals in the same order, each answered at once and nothing run.
 * 503 stopping process → 401 not signed → 415 batch → 400 decided by unsigned headers.
 */
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { serverClosing } from '../n8n-compat';
import { BATCH_ANSWER, isCloudEventsBatch, parseIncoming, type IncomingDelivery, type IncomingRequest } from './cloudevents';
import { UNSIGNED_ANSWERS, unsignedRefusal, withSignedKey, type TrustRules } from './signed';
import { shuttingDown, unauthorized, verifiedDelivery, type ResponseLike, type VerifiedDelivery } from './verify';

export interface Taken {
	/** Parsed, with its duplicate key taken from signed bytes only (signed.ts). */
	delivery: IncomingDelivery;
	verified: VerifiedDelivery;
}

export type Intake = { answered: IWebhookResponseData } | Taken;

function refuse(res: ResponseLike, status: number, body: unknown): { answered: IWebhookResponseData } {
	res.status(status).json(body);
	return { answered: { noWebhookResponse: true } };
}

export async function intake(ctx: IWebhookFunctions, rules: TrustRules): Promise<Intake> {
	const res = ctx.getResponseObject() as unknown as ResponseLike;
	const req = ctx.getRequestObject() as unknown as IncomingRequest;
	// a stopping process takes nothing: what it accepted could be cut off before it is stored
	if (serverClosing(req)) return { answered: shuttingDown(res) };
	const verified = await verifiedDelivery(ctx);
	if (verified === undefined) return { answered: unauthorized(res) };
	if (isCloudEventsBatch(req.headers)) return refuse(res, 415, BATCH_ANSWER);
	const delivery = parseIncoming(verified.rawBody, req);
	const unsigned = unsignedRefusal(delivery, verified.rawBody, rules);
	if (unsigned !== null) return refuse(res, 400, UNSIGNED_ANSWERS[unsigned]);
	return { delivery: withSignedKey(delivery, verified.digest), verified };
}
