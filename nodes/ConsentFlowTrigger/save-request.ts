// Under When the Workflow Finishes n8n saves static data before the answer that decides a key:
// the answer waits for a save request to this trigger's own URL (n8n-compat.ts, hook 8).
import { timingSafeEqual } from 'crypto';
import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { requestRawBody } from '../shared/n8n-compat';
import { activeSigningSecrets } from '../shared/webhook/verify';
import { derivedHmac } from '../shared/webhook/webhook-id';

export const SAVE_HEADER = 'x-n8n-nodes-sbl-save';

const SAVE_LABEL = 'n8n-nodes-sbl save request v1';

/** How long the answer waits for the save; past it the answer goes out and the key is saved later. */
export const SAVE_TIMEOUT_MS = 5000;

const MAX_SAVE_BYTES = 64 * 1024;

export const SAVED = { saved: true } as const;

function signatureOf(body: Buffer, secret: string): Buffer {
	return Buffer.from(derivedHmac(secret, SAVE_LABEL, body), 'hex');
}

/** Where a save request goes: the trigger's production URL (execute() gets it from webhook()). */
export function saveUrlOf(ctx: IWebhookFunctions): string {
	try {
		return ctx.getNodeWebhookUrl('default') ?? '';
	} catch {
		return '';
	}
}

/** After a failed save request none is sent to that URL for a pause, doubled per failure in a row up to this. */
export const UNREACHABLE_PAUSE_MS = 10 * 60 * 1000;

export const FIRST_PAUSE_MS = 15 * 1000;

const pauses = new Map<string, { until: number; ms: number }>();

/** Sends the keys to be kept to this trigger's production URL; true once n8n answered after saving. */
export async function askToSave(
	ctx: IWebhookFunctions | IExecuteFunctions,
	url: string,
	keys: readonly string[],
	now = Date.now(),
): Promise<boolean> {
	if (keys.length === 0 || url === '') return false;
	const pause = pauses.get(url);
	if (pause !== undefined && pause.until > now) return false;
	const [secret] = await activeSigningSecrets(ctx);
	if (secret === undefined) return false;
	const body = Buffer.from(JSON.stringify({ node: ctx.getNode().name, keys }));
	let text = '';
	try {
		const answer = (await ctx.helpers.httpRequest({
			method: 'POST',
			url,
			body,
			headers: {
				'content-type': 'application/json',
				[SAVE_HEADER]: signatureOf(body, secret).toString('hex'),
			},
			timeout: SAVE_TIMEOUT_MS,
			json: false,
		})) as unknown;
		text = Buffer.isBuffer(answer)
			? answer.toString('utf8')
			: typeof answer === 'string'
				? answer
				: JSON.stringify(answer);
	} catch (error) {
		text = `failed: ${(error as Error).message}`;
	}
	if (text.includes('"saved":true')) {
		pauses.delete(url);
		return true;
	}
	if (pauses.size > 100) pauses.clear();
	const ms = pause === undefined ? FIRST_PAUSE_MS : Math.min(UNREACHABLE_PAUSE_MS, 2 * pause.ms);
	pauses.set(url, { until: now + ms, ms });
	if (pause !== undefined) return false;
	ctx.logger?.warn(
		`Consent Flow Trigger "${ctx.getNode().name}": n8n did not answer the trigger's save request at its production URL ${url}, (${text.slice(0, 120)}), so a delivery's key reaches the database with the next delivery (a copy after a restart may run again). Check that n8n reaches its WEBHOOK_URL from inside. Tried again in ${ms / 1000} seconds, the wait doubling per failure up to 10 minutes.`,
	);
	return false;
}

/** A save request's keys; null for a delivery (no header); refused unless signed for this node. */
export async function takeSaveRequest(
	ctx: IWebhookFunctions,
): Promise<{ keys: string[] } | 'refused' | null> {
	const req = ctx.getRequestObject() as unknown as { headers?: Record<string, unknown> };
	const header = req.headers?.[SAVE_HEADER];
	if (header === undefined) return null;
	if (typeof header !== 'string' || !/^[0-9a-f]{64}$/.test(header)) return 'refused';
	const raw = await requestRawBody(req);
	if (raw === undefined || raw.length > MAX_SAVE_BYTES) return 'refused';
	const received = Buffer.from(header, 'hex');
	const secrets = await activeSigningSecrets(ctx);
	if (!secrets.some((secret) => timingSafeEqual(received, signatureOf(raw, secret)))) {
		return 'refused';
	}
	let request: { node?: unknown; keys?: unknown };
	try {
		request = JSON.parse(raw.toString('utf8')) as typeof request;
	} catch {
		return 'refused';
	}
	const { node, keys } = request ?? {};
	if (node !== ctx.getNode().name || !Array.isArray(keys)) return 'refused';
	return keys.every((key) => typeof key === 'string' && key !== '') ? { keys } : 'refused';
}
