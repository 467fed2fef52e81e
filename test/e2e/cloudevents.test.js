'use strict';
// CloudEvents 1.0 deliveries through a real n8n: n8n must hand the trigger the exact raw bytes for
// `application/cloudevents+json` too. The format is only announced, so a structured event is read as
// the envelope; binary mode (attributes in unsigned `ce-` headers) is read by its body alone and
// lands on Unrecognised. References: CloudEvents HTTP Protocol Binding, "3.1 Binary Content Mode",
// "3.2 Structured Content Mode".
const crypto = require('node:crypto');
const { request, sleep } = require('./lib/http');
const { useN8n, versions } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');

const TRIGGER = 'Consent Flow Trigger';
const SIGNING = 'consentFlowWebhookSigningApi';
const HEADER = 'x-acme-sbl-signature';
// The trigger's outputs with every event selected (README, Outputs), from the published list.
const OUTPUT = { 'consent.accepted': 1, unrecognised: 10 };

describe.each(versions())(
	'n8n %s.x: CloudEvents deliveries to the Consent Flow Trigger',
	(major) => {
		const ctx = useN8n(major);
		const secret = crypto.randomBytes(24).toString('hex');
		const TAG = crypto.randomBytes(3).toString('hex');
		let cred;

		beforeAll(async () => {
			cred = await ctx.n8n.createCredential({
				name: 'CE signing',
				type: SIGNING,
				data: { secret, signatureHeader: '' },
			});
		}, 120000);

		/** A workflow with the trigger; its production URL and id. */
		async function deploy() {
			const trigger = W.packageTriggerNode({ name: TRIGGER, credentials: { [SIGNING]: cred } });
			const wf = await ctx.n8n.deployWorkflow(W.workflow(`cloudevents ${TAG}`, [trigger], {}), {
				webhookPaths: [W.triggerWebhookPath(trigger)],
			});
			return { url: ctx.n8n.webhookUrl(W.triggerWebhookPath(trigger)), workflowId: wf.id };
		}

		const postTo = (url, body, headers) =>
			request('POST', url, {
				body: Buffer.from(body, 'utf8'),
				headers: {
					[HEADER]: crypto.createHmac('sha256', secret).update(body).digest('hex'),
					...headers,
				},
			});

		it('a CloudEvent is read as the envelope (its id de-duplicates; a type that is no event name is Unrecognised), binary mode by its body', async () => {
			const { url, workflowId } = await deploy();
			const post = (body, headers) => postTo(url, body, headers);
			const tag = TAG;
			const ceType = { 'content-type': 'application/cloudevents+json; charset=utf-8' };
			// Spacing and an escaped character: the signature is over these exact bytes.
			const structured = `{ "specversion": "1.0", "id": "ce-s-${tag}", "source": "/sbl", "type": "no.example.sbl.consent.accepted",\n  "time": "2030-01-02T03:04:05Z", "data": {"flow": "fl\\u00f8w-1"} }`;
			const s1 = await post(structured, ceType);
			expect([s1.status, s1.json && s1.json.status]).toEqual([200, 'emitted']);
			expect((await post(structured, ceType)).json.status).toBe('duplicate');
			// CloudEvents attributes beside the envelope's own fields (compatibility is promised)
			const both = `{"specversion":"1.0","id":"ce-p-${tag}","source":"/sbl","type":"consent.accepted","webhookId":"ce-p-${tag}","event":"consent.accepted","timestamp":"2030-01-02T03:04:05Z","payload":{"flow":"fl\\u00f8w-1","amount":1.50}}`;
			expect((await post(both, ceType)).json.status).toBe('emitted');

			const data = JSON.stringify({ flow: 'flow-b', externalId: 'loan-b' });
			const binary = {
				'content-type': 'application/json',
				'ce-specversion': '1.0',
				'ce-id': `ce-b-${tag}%20%C3%B8`,
				'ce-source': '/sbl',
				'ce-type': 'consent.rejected',
				'ce-time': '2030-01-02T03:04:05Z',
			};
			// binary mode is not taken (its ce- headers are unsigned): the body alone, on Unrecognised
			const b1 = await post(data, binary);
			expect([b1.status, b1.json && b1.json.status, b1.json && b1.json.webhookId]).toEqual([
				200,
				'emitted',
				null,
			]);
			expect((await post(data, binary)).json.status).toBe('duplicate');

			// Unsigned: 401 before anything else.
			const unsigned = await request('POST', url, {
				body: structured,
				headers: { 'content-type': 'application/cloudevents+json' },
			});
			expect(unsigned.status).toBe(401);

			let executions = [];
			for (
				let i = 0;
				i < 60 && !(executions.length >= 3 && executions.every((e) => e.stoppedAt));
				i++
			) {
				await sleep(500);
				executions = await L.allExecutions(ctx.n8n, workflowId, { includeData: false });
			}
			executions = await L.allExecutions(ctx.n8n, workflowId, { includeData: true });
			expect(executions.map((e) => e.status)).toEqual(['success', 'success', 'success']);
			const ledger = L.deliveryLedger(executions, TRIGGER);
			expect(ledger.get(`ce-s-${tag}`)).toEqual([
				expect.objectContaining({ output: OUTPUT.unrecognised }),
			]);
			expect(ledger.get(`ce-p-${tag}`)).toEqual([
				expect.objectContaining({ output: OUTPUT['consent.accepted'] }),
			]);
			expect(ledger.get(null)).toEqual([expect.objectContaining({ output: OUTPUT.unrecognised })]);
			const items = executions.flatMap((e) => L.triggerRun(e, TRIGGER).items.map((i) => i.json));
			expect(items.find((j) => j.webhookId === `ce-s-${tag}`)).toMatchObject({
				event: 'no.example.sbl.consent.accepted',
				reason: 'unknown-event',
			});
			expect(items.find((j) => j.webhookId === `ce-p-${tag}`)).toMatchObject({
				event: 'consent.accepted',
				timestamp: '2030-01-02T03:04:05Z',
				flowId: 'fløw-1',
				// The exact number as sent (1.50 parses to 1.5), the signature was over these bytes.
				payload: { amount: 1.5 },
			});
		}, 120000);
	},
);
