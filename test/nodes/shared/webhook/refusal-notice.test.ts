/**
 * Issue 43: a delivery refused for its signature is visible in n8n's log, at most one warning per
 * trigger per minute, without the body, the signature or the secret. Expectations from the issue.
 */
import type { IWebhookFunctions } from 'n8n-workflow';
import type { Facts } from '../../../../nodes/shared/webhook/decide';
import { noticeDue, noticeRefused } from '../../../../nodes/shared/webhook/refusal-notice';

const REFUSED = { closing: false, verified: false } as Facts;

function webhookContext(workflowId: string, headers: Record<string, string>) {
	const warnings: string[] = [];
	const ctx = {
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
		for (let i = 0; i < 50; i++) noticeRefused(ctx, REFUSED, 1_000_000 + i);
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

	test('no signature header says so; verified deliveries and shutdown answers log nothing', () => {
		const unsigned = webhookContext('wf-unsigned', {});
		noticeRefused(unsigned.ctx, REFUSED, 5_000_000);
		expect(unsigned.warnings[0]).toContain('it carries no signature header');
		const quiet = webhookContext('wf-quiet', { 'x-acme-sbl-signature': 'x' });
		noticeRefused(quiet.ctx, { ...REFUSED, verified: true }, 5_000_000);
		noticeRefused(quiet.ctx, { ...REFUSED, closing: true }, 5_000_000);
		expect(quiet.warnings).toEqual([]);
	});
});
