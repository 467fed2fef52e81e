/**
 * Issue 43: a delivery refused for its signature is visible in n8n's log, at most one warning per
 * trigger per minute, without the body, the signature or the secret. Expectations from the issue.
 */
import type { IWebhookFunctions } from 'n8n-workflow';
import type { Facts } from '../../../../nodes/shared/webhook/decide';
import { createHmac } from 'crypto';
import { fakeWebhook } from '../../../support/webhook-context';
import {
	intake,
	noticeDue,
	noticeRefused,
	refusalInEditor,
	refusedTestItem,
} from '../../../../nodes/shared/webhook/intake';

const REFUSED = { closing: false, verified: false } as Facts;
const SECRET = 'dummy-current-secret-0123456789';
const HEADER = 'x-acme-sbl-signature';

function webhookContext(workflowId: string, headers: Record<string, string>, mode = 'trigger') {
	const warnings: string[] = [];
	const ctx = {
		getMode: () => mode,
		getWorkflow: () => ({ id: workflowId, active: true }),
		getNode: () => ({ name: 'Consent Flow Trigger' }),
		getRequestObject: () => ({ headers, body: { secret: 'body-value' } }),
		logger: { warn: (message: string) => warnings.push(message) },
	} as unknown as IWebhookFunctions;
	return { ctx, warnings };
}

describe('refused deliveries: a rate-limited warning', () => {
	test('at most one warning per key per minute, again after a minute', () => {
		const memory = new Map<string, number>();
		expect(noticeDue('a', 0, memory)).toBe(true);
		expect(noticeDue('a', 59_999, memory)).toBe(false);
		expect(noticeDue('b', 1, memory)).toBe(true);
		expect(noticeDue('a', 60_000, memory)).toBe(true);
		expect(noticeDue('a', 60_001, memory)).toBe(false);
	});

	test('a wrong signature: one warning naming the workflow, the node and the fix; never the signature', () => {
		const signature = 'ab'.repeat(32);
		const { ctx, warnings } = webhookContext('wf-sig', { 'x-acme-sbl-signature': signature });
		for (let i = 0; i < 50; i++) noticeRefused(ctx, 1_000_000 + i);
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toContain(
			'Workflow wf-sig, node "Consent Flow Trigger" refused a delivery (401)',
		);
		expect(warnings[0]).toContain(
			'matches neither the Signing Secret nor the Previous Signing Secret',
		);
		expect(warnings[0]).toContain('Signing Secret must be the service');
		expect(warnings[0]).not.toContain(signature);
		expect(warnings[0]).not.toContain('body-value');
	});

	test('no signature header says so', () => {
		const unsigned = webhookContext('wf-unsigned', {});
		noticeRefused(unsigned.ctx, 5_000_000);
		expect(unsigned.warnings[0]).toContain('it carries no signature header');
	});

	test('intake warns of a refusal only: a verified delivery and a stopping process log nothing', async () => {
		const body = '{"event":"consent.created"}';
		const signature = createHmac('sha256', SECRET).update(body).digest('hex');
		const run = async (name: string, headers: Record<string, string>, closing = false) => {
			const hook = fakeWebhook({ headers, rawBody: body, closing }, { secret: SECRET });
			const warnings: string[] = [];
			Object.assign(hook.ctx, {
				getWorkflow: () => ({ id: name }),
				getNode: () => ({ name, credentials: {} }),
				logger: { warn: (message: string) => warnings.push(message) },
			});
			await intake(hook.ctx, 'trigger', { maxAgeSeconds: 0 });
			return warnings.length;
		};
		expect(await run('wf-refused', { [HEADER]: 'ab'.repeat(32) })).toBe(1);
		expect(await run('wf-verified', { [HEADER]: signature })).toBe(0);
		expect(await run('wf-closing', { [HEADER]: 'ab'.repeat(32) }, true)).toBe(0);
	});
});

// Issue 48: on the Test URL (Listen for test event) the refusal shows in the editor, as the
// trigger's error in the execution the refused item starts (the sender still gets 401).
describe('refused deliveries on the Test URL', () => {
	const signature = 'cd'.repeat(32);
	const headers = { 'x-acme-sbl-signature': signature, 'content-type': 'application/json' };

	test('a test delivery with a wrong signature gives an item that carries header names only', () => {
		const { ctx } = webhookContext('wf-t', headers, 'manual');
		const item = refusedTestItem(ctx, REFUSED);
		expect(item).toEqual({ json: {}, sblRefused: { headers: ['x-acme-sbl-signature'] } });
		expect(JSON.stringify(item)).not.toContain(signature);
	});

	test('production, verified deliveries and shutdown answers give none', () => {
		expect(refusedTestItem(webhookContext('wf-p', headers, 'webhook').ctx, REFUSED)).toBeNull();
		expect(refusedTestItem(webhookContext('wf-p', headers, 'trigger').ctx, REFUSED)).toBeNull();
		const test = webhookContext('wf-t', headers, 'manual').ctx;
		expect(refusedTestItem(test, { ...REFUSED, verified: true })).toBeNull();
		expect(refusedTestItem(test, { ...REFUSED, closing: true })).toBeNull();
	});

	test('the editor text names the header, both secrets and what to compare', () => {
		const refusal = refusalInEditor([
			refusedTestItem(webhookContext('wf-t', headers, 'manual').ctx, REFUSED)!,
		]);
		expect(refusal?.message).toBe(
			'The test delivery was refused (401) because its signature (header x-acme-sbl-signature) matches neither the Signing Secret nor the Previous Signing Secret',
		);
		expect(refusal?.description).toContain('as the operator gave it');
		expect(refusal?.description).toContain('Signature Header must be empty or the header');
		expect(JSON.stringify(refusal)).not.toContain(signature);
		expect(JSON.stringify(refusal)).not.toContain('body-value');
	});

	test('unsigned: says so; ordinary items: no refusal', () => {
		const item = refusedTestItem(webhookContext('wf-t', {}, 'manual').ctx, REFUSED)!;
		expect(refusalInEditor([item])?.message).toContain('it carries no signature header');
		expect(refusalInEditor([{ json: { event: 'x' } }])).toBeNull();
	});
});
