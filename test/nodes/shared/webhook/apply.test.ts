/**
 * apply.ts without HTTP: an answer given now is written to the response once (status, headers,
 * body) or handed to n8n; a run gives n8n the items and leaves the answer to whoever the plan says
 * (what becomes of the run is the memory's: `follow`, tested in ConsentFlowTrigger/dedupe.test.ts).
 */
import type { AnswerPlan } from '../../../../nodes/shared/webhook/decide';
import { apply } from '../../../../nodes/shared/webhook/apply';
import { fakeWebhook } from '../../../support/webhook-context';

const items = [{ json: { event: 'consent.created' } }];
const plan = (answeredBy: AnswerPlan['answeredBy']): AnswerPlan => ({
	answeredBy,
	remember: 'never',
});

describe('apply: an answer now', () => {
	test('by the node, a JSON body: status and body written, n8n told not to answer', () => {
		const { ctx, written } = fakeWebhook({});
		const body = { received: false, status: 'stale' };
		const result = apply(ctx, { kind: 'now', by: 'node', status: 401, body });
		expect(result).toEqual({ noWebhookResponse: true });
		expect(written).toMatchObject({ status: 401, body, ended: true });
	});

	test('by the node, a text body with headers: headers set, text sent, response ended', () => {
		const { ctx, written } = fakeWebhook({});
		const headers = { 'retry-after': '5' };
		apply(ctx, { kind: 'now', by: 'node', status: 503, body: 'stopping', headers });
		expect(written).toEqual({ status: 503, body: 'stopping', ended: true, headers });
	});

	test('by n8n: the body goes to n8n as its response, nothing is written here', () => {
		const { ctx, written } = fakeWebhook({});
		const body = { received: true };
		expect(apply(ctx, { kind: 'now', by: 'n8n', status: 200, body })).toEqual({
			webhookResponse: body,
		});
		expect(written).toEqual({ ended: false, headers: {} });
	});
});

describe('apply: a run', () => {
	test('answered from execute(): the items, and n8n told not to answer', () => {
		const { ctx, written } = fakeWebhook({});
		const result = apply(ctx, { kind: 'run', plan: plan('execute'), ack: null }, { items });
		expect(result).toEqual({ workflowData: [items], noWebhookResponse: true });
		expect(written.ended).toBe(false);
	});

	test('answered by n8n after the run: the items only, n8n answers', () => {
		const { ctx } = fakeWebhook({});
		const result = apply(ctx, { kind: 'run', plan: plan('n8n-after-run'), ack: null }, { items });
		expect(result).toEqual({ workflowData: [items] });
	});
});
