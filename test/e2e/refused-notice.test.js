'use strict';
// Issue 43, in a real n8n: a builder whose Signing Secret is wrong finds out from n8n. Every
// delivery signed with another key is refused (401) without an execution; n8n's log gets one
// warning a minute per trigger naming the workflow, the node and the fix, never the body, the
// signature or the secret. A flood of unsigned requests starts no execution and adds no more lines.
const crypto = require('node:crypto');
const fs = require('node:fs');
const { request, sleep } = require('./lib/http');
const { useN8n, versions } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');

const TRIGGER = 'Consent Flow Trigger';
const SIGNING = 'consentFlowWebhookSigningApi';
const HEADER = 'x-acme-sbl-signature';
const NOTICE = /refused a delivery \(401\)/;

/** The warning lines in n8n's log file (logs() joins stdout and the file: each line is in both). */
function noticeLines(n8n) {
	const text = fs.existsSync(n8n.logFile) ? fs.readFileSync(n8n.logFile, 'utf8') : '';
	const message = (line) => {
		try {
			return String(JSON.parse(line).message ?? '');
		} catch {
			return line;
		}
	};
	return text
		.split('\n')
		.map(message)
		.filter((line) => NOTICE.test(line));
}

describe.each(versions())('n8n %s.x: refused deliveries are visible in n8n (issue 43)', (major) => {
	const ctx = useN8n(major);
	const saved = `saved-${crypto.randomBytes(12).toString('hex')}`;
	const serviceKey = `service-${crypto.randomBytes(12).toString('hex')}`;
	const TAG = crypto.randomBytes(3).toString('hex');

	test('a wrong Signing Secret: 401s, no execution, one warning a minute naming the fix and nothing secret', async () => {
		const cred = await ctx.n8n.createCredential({
			name: `Refused ${TAG}`,
			type: SIGNING,
			data: { secret: saved, signatureHeader: '' },
		});
		const trigger = W.packageTriggerNode({ name: TRIGGER, credentials: { [SIGNING]: cred } });
		const wf = await ctx.n8n.deployWorkflow(W.workflow(`refused ${TAG}`, [trigger], {}), {
			webhookPaths: [W.triggerWebhookPath(trigger)],
		});
		const url = ctx.n8n.webhookUrl(W.triggerWebhookPath(trigger));
		const before = noticeLines(ctx.n8n).length;
		const bodies = [];
		const statuses = [];
		// The service signs with a key the credential does not hold (a stray character, an old key).
		for (let i = 0; i < 10; i++) {
			const body = JSON.stringify({
				webhookId: `wh-${TAG}-${i}`,
				event: 'consent.created',
				payload: { flow: `flow-${TAG}`, nationalId: '01017000000' },
			});
			bodies.push(body);
			const signature = crypto.createHmac('sha256', serviceKey).update(body).digest('hex');
			const r = await request('POST', url, {
				body: Buffer.from(body),
				headers: { 'content-type': 'application/json', [HEADER]: signature },
			});
			statuses.push(r.status);
		}
		// A flood without any signature.
		const flood = await Promise.all(
			Array.from({ length: 60 }, (_, i) =>
				request('POST', url, { json: { webhookId: `x-${i}`, event: 'consent.data' } }),
			),
		);
		expect(statuses).toEqual(Array(10).fill(401));
		expect(flood.map((r) => r.status)).toEqual(Array(60).fill(401));

		await sleep(1500);
		const logs = ctx.n8n.logs();
		const lines = noticeLines(ctx.n8n);
		expect({ added: lines.length - before, lines }).toEqual({ added: 1, lines: expect.any(Array) });
		const line = lines[lines.length - 1];
		expect(line).toContain(`Workflow ${wf.id}, node "${TRIGGER}"`);
		expect(line).toContain(
			'its signature matches neither the Signing Secret nor the Previous Signing Secret',
		);
		expect(line).toContain('check the Consent Flow Webhook Signing API credential');
		for (const secret of [saved, serviceKey, '01017000000', `wh-${TAG}-0`])
			expect(logs).not.toContain(secret);
		for (const body of bodies) {
			const signature = crypto.createHmac('sha256', serviceKey).update(body).digest('hex');
			expect(logs).not.toContain(signature);
		}
		expect(await L.allExecutions(ctx.n8n, wf.id, { includeData: false })).toEqual([]);
		console.log(`n8n ${major}.x refused-delivery warning:\n${line}`);
	}, 120000);

	// Issue 48: while the builder listens for a test event (the editor's "Listen for test event" =
	// POST /rest/workflows/<id>/run from the trigger), a refused delivery is still answered 401, and
	// the test execution fails on the trigger with what to check: what the editor shows.
	test('on the Test URL a wrong signature is answered 401 and shows in the test execution with what to check', async () => {
		const cred = await ctx.n8n.createCredential({
			name: `Refused test ${TAG}`,
			type: SIGNING,
			data: { secret: saved, signatureHeader: '' },
		});
		const checked = await ctx.n8n.testCredential(cred.id);
		expect(checked.status).toBe('Error'); // n8n would show any OK as "Connection tested successfully"
		expect(checked.message).toMatch(/^Not checked: /);
		expect(checked.message).not.toContain(saved);

		const trigger = W.packageTriggerNode({ name: TRIGGER, credentials: { [SIGNING]: cred } });
		const after = {
			id: crypto.randomUUID(),
			name: 'After',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [300, 0],
			parameters: {},
		};
		const wf = await ctx.n8n.createWorkflow(W.workflow(`refused test ${TAG}`, [trigger, after]));
		const workflowData = await ctx.n8n.rest('GET', `/rest/workflows/${wf.id}`);
		const listening = await ctx.n8n.rest('POST', `/rest/workflows/${wf.id}/run`, {
			workflowData,
			triggerToStartFrom: { name: TRIGGER },
		});
		expect(listening).toMatchObject({ waitingForWebhook: true });

		const body = JSON.stringify({
			webhookId: `wh-test-${TAG}`,
			event: 'consent.created',
			payload: { flow: `flow-test-${TAG}`, nationalId: '01017000000' },
		});
		const signature = crypto.createHmac('sha256', serviceKey).update(body).digest('hex');
		const answer = await request(
			'POST',
			`${ctx.n8n.url}/webhook-test/${W.triggerWebhookPath(trigger)}`,
			{
				body: Buffer.from(body),
				headers: { 'content-type': 'application/json', [HEADER]: signature },
			},
		);
		expect(answer.status).toBe(401);

		const [execution] = await ctx.n8n.waitForExecutions(wf.id, { count: 1 });
		expect(execution.mode).toBe('manual');
		expect(execution.status).toBe('error');
		const error = W.executionError(execution);
		expect(error.message).toBe(
			`The test delivery was refused (401) because its signature (header ${HEADER}) matches neither the Signing Secret nor the Previous Signing Secret`,
		);
		expect(error.description).toContain('as the operator gave it');
		expect(Object.keys(execution.data.resultData.runData)).toEqual([TRIGGER]); // nothing after it ran
		const whole = JSON.stringify(execution);
		for (const secret of [
			saved,
			serviceKey,
			signature,
			'01017000000',
			`wh-test-${TAG}`,
			`flow-test-${TAG}`,
		])
			expect(whole).not.toContain(secret);
		console.log(`n8n ${major}.x test-URL refusal: ${error.message}\n${error.description}`);
	}, 120000);
});
