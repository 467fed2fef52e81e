/** The one intake of both webhook entry points: the facts decide.ts answers on; it answers nothing. */
import type { INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';
import { serverClosing } from '../n8n-compat';
import { FACTS, type Facts } from './decide';
import { bodyText, isStale, parseEnvelope, type ParsedDelivery } from './envelope';
import type { HeaderBag } from './signature';
import { verifiedDelivery, type VerifiedDelivery } from './verify';

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
	if (verified === undefined) {
		noticeRefused(ctx);
		return { facts: { ...FACTS, entry } };
	}
	const parsed = parseEnvelope(verified.rawBody);
	const facts: Facts = {
		...FACTS,
		entry,
		verified: true,
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
		stale: isStale(parsed, rules.maxAgeSeconds, Date.now()),
	};
	// a delivery without a signed id is keyed on its signed bytes, one key per active secret (all recorded)
	const [key, ...also] = parsed.deliveryKey === null ? verified.bodyKeys() : [];
	const delivery =
		key === undefined ? parsed : { ...parsed, deliveryKey: key, otherKeys: { also } };
	return { facts, taken: { delivery, verified } };
}

// A refusal (401) runs no execution: without a warning a wrong Signing Secret shows nothing in n8n.
// At most one a minute per trigger and process, so a flood of unsigned requests gives one line.
const NOTICE_INTERVAL_MS = 60_000;

const lastNotice = new Map<string, number>();

export function noticeDue(key: string, now: number, memory = lastNotice): boolean {
	const last = memory.get(key);
	if (last !== undefined && now - last < NOTICE_INTERVAL_MS) return false;
	if (memory.size >= 1000 && last === undefined) memory.clear();
	memory.set(key, now);
	return true;
}

/** Names only, never values: the headers that look like a signature. */
function signatureHeaderNames(headers: Record<string, unknown> | undefined): string[] {
	return Object.keys(headers ?? {})
		.filter((name) => /signature/i.test(name))
		.slice(0, 4)
		.map((name) => name.slice(0, 80));
}

/** Why a delivery was refused, naming the signature headers it has where `named`. */
function refusedBecause(names: string[], named: boolean): string {
	if (names.length === 0) return 'it carries no signature header';
	const which = named ? ` (header ${names.join(', ')})` : '';
	return `its signature${which} matches neither the Signing Secret nor the Previous Signing Secret`;
}

const check = (operator: string) =>
	`check the Consent Flow Webhook Signing API credential: the Signing Secret must be the service's secret webhook key exactly${operator} (no stray spaces or characters; after a rotation the new key, with the old one in Previous Signing Secret), and Signature Header must be empty or the header the service uses.`;

/** On a test URL (Listen for test event) a refused delivery becomes an execution that fails with this. */
export const REFUSED = 'sblRefused';

export function refusedTestItem(ctx: IWebhookFunctions, facts: Facts): INodeExecutionData | null {
	if (facts.closing || facts.verified || ctx.getMode() !== 'manual') return null;
	const req = ctx.getRequestObject() as unknown as { headers?: Record<string, unknown> };
	return { json: {}, [REFUSED]: { headers: signatureHeaderNames(req.headers) } };
}

export function refusalInEditor(
	items: INodeExecutionData[],
): { message: string; description: string } | null {
	const refused = items.find((item) => typeof item[REFUSED] === 'object')?.[REFUSED] as
		| { headers?: unknown }
		| undefined;
	if (refused === undefined) return null;
	const names = Array.isArray(refused.headers) ? refused.headers.map(String) : [];
	return {
		message: `The test delivery was refused (401) because ${refusedBecause(names, true)}`,
		description: `The sender got 401 and nothing after this node ran. If the consent flow service sent it, ${check(', as the operator gave it')} On the Production URL the same refusal is answered 401 and written to n8n's log.`,
	};
}

export function noticeRefused(ctx: IWebhookFunctions, now = Date.now()): void {
	if (typeof ctx.logger?.warn !== 'function') return;
	// a notice never stands in the way of the answer: contexts without a workflow still answer
	const workflowId =
		typeof ctx.getWorkflow === 'function' ? String(ctx.getWorkflow().id ?? '') : '';
	const node = ctx.getNode().name;
	if (!noticeDue(`${workflowId}\u0000${node}`, now)) return;
	const req = ctx.getRequestObject() as unknown as { headers?: Record<string, unknown> };
	const because = refusedBecause(signatureHeaderNames(req.headers), false);
	ctx.logger.warn(
		`Workflow ${workflowId}, node "${node}" refused a delivery (401) because ${because}. No execution was started. If the consent flow service sent it, ${check('')} At most one such warning per minute per trigger.`,
	);
}
