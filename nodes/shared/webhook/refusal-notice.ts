// A refusal (401) runs no execution: without this warning a wrong Signing Secret shows nothing in n8n.
// At most one a minute per trigger, so a flood of unsigned requests gives one line; no body or secret.
import type { IWebhookFunctions } from 'n8n-workflow';
import type { Facts } from './decide';

const NOTICE_INTERVAL_MS = 60_000;

// Per process: a restart may log one more line, which is harmless. Bounded against many triggers.
const MAX_REMEMBERED = 1000;
const lastNotice = new Map<string, number>();

export function noticeDue(key: string, now: number, memory = lastNotice): boolean {
	const last = memory.get(key);
	if (last !== undefined && now - last < NOTICE_INTERVAL_MS) return false;
	if (memory.size >= MAX_REMEMBERED && last === undefined) memory.clear();
	memory.set(key, now);
	return true;
}

function carriesSignature(headers: Record<string, unknown> | undefined): boolean {
	return Object.keys(headers ?? {}).some((name) => /signature/i.test(name));
}

function refusalNotice(where: string, signed: boolean): string {
	const what = signed
		? 'its signature matches neither the Signing Secret nor the Previous Signing Secret'
		: 'it carries no signature header';
	return `${where} refused a delivery (401) because ${what}. No execution was started. If the consent flow service sent it, check the Consent Flow Webhook Signing API credential: the Signing Secret must be the service's secret webhook key exactly (no stray spaces or characters; after a rotation the new key, with the old one in Previous Signing Secret), and Signature Header must be empty or the header the service uses. At most one such warning per minute per trigger.`;
}

export function noticeRefused(ctx: IWebhookFunctions, facts: Facts, now = Date.now()): void {
	if (facts.closing || facts.verified || typeof ctx.logger?.warn !== 'function') return;
	// a notice never stands in the way of the answer: contexts without a workflow still answer
	const workflowId =
		typeof ctx.getWorkflow === 'function' ? String(ctx.getWorkflow().id ?? '') : '';
	const node = ctx.getNode().name;
	if (!noticeDue(`${workflowId}\u0000${node}`, now)) return;
	const req = ctx.getRequestObject() as unknown as { headers?: Record<string, unknown> };
	const where = `Workflow ${workflowId}, node "${node}"`;
	ctx.logger.warn(refusalNotice(where, carriesSignature(req.headers)));
}
