import { createHmac, randomBytes } from 'crypto';
import { sleep, type IDataObject, type IWebhookFunctions } from 'n8n-workflow';

import {
	FLUSH_AFTER_MS,
	follow,
	hold,
	keepSaved,
	lookUp,
	slotOf,
	DEDUPE_KEY,
} from '../../../nodes/ConsentFlowTrigger/dedupe';
import {
	SAVE_HEADER,
	FIRST_PAUSE_MS,
	UNREACHABLE_PAUSE_MS,
	askToSave,
	takeSaveRequest,
} from '../../../nodes/ConsentFlowTrigger/save-request';
import type { ParsedDelivery as IncomingDelivery } from '../../../nodes/shared/webhook/envelope';
import { answerPlan } from '../../../nodes/shared/webhook/decide';
import { savedKeys } from './helpers';

// Independent oracle of the save request's signature: HMAC under a key derived from the secret.
function signed(body: Buffer, secret: string): string {
	const derived = createHmac('sha256', secret).update('n8n-nodes-sbl save request v1').digest();
	return createHmac('sha256', derived).update(body).digest('hex');
}

interface Sent {
	url: string;
	body: Buffer;
	headers: Record<string, string>;
}

function fixture(opts: { answer?: (sent: Sent) => Promise<unknown> } = {}) {
	const secret = randomBytes(24).toString('hex');
	const sent: Sent[] = [];
	const staticData: IDataObject = {};
	const ended: number[] = [];
	const res = {
		statusCode: 200,
		end() {
			ended.push(res.statusCode);
		},
		once() {},
	};
	let req: { headers: Record<string, unknown>; rawBody?: Buffer } = { headers: {} };
	const url = `http://127.0.0.1:5678/webhook/${randomBytes(4).toString('hex')}/consent-flow`;
	// a workflow of its own: one fixture's flush is not another's
	const workflowId = `wf-${randomBytes(4).toString('hex')}`;
	const warnings: string[] = [];
	const ctx = {
		getNode: () => ({
			name: 'Trigger',
			credentials: { consentFlowWebhookSigningApi: { id: randomBytes(6).toString('hex') } },
		}),
		getCredentials: async () => ({ secret, signatureHeader: '' }),
		getNodeParameter: (_name: string, ...rest: unknown[]) => rest[rest.length - 1],
		getMode: () => 'webhook',
		getWorkflow: () => ({ id: workflowId }),
		getWorkflowStaticData: () => staticData,
		getResponseObject: () => res,
		getRequestObject: () => req,
		getNodeWebhookUrl: () => url,
		logger: { warn: (text: string) => void warnings.push(text) },
		helpers: {
			httpRequest: async (options: Sent) => {
				sent.push(options);
				return opts.answer ? await opts.answer(options) : Buffer.from('{"saved":true}');
			},
		},
	} as unknown as IWebhookFunctions;
	const receive = (s: Sent) => {
		req = { headers: { [SAVE_HEADER]: s.headers[SAVE_HEADER] }, rawBody: s.body };
	};
	return { ctx, secret, sent, staticData, res, ended, receive, url, warnings };
}

const delivery = (key: string) =>
	({ deliveryKey: key, otherKeys: { also: [], legacy: [] } }) as unknown as IncomingDelivery;

const flush = async () => await sleep(0);

describe('save request (When the Workflow Finishes: the key is saved before the answer)', () => {
	it('a 2xx answer waits until n8n answered the save request, which carries the kept keys signed', async () => {
		let release: () => void = () => {};
		const f = fixture({
			answer: () =>
				new Promise((resolve) => {
					release = () => resolve(Buffer.from('{"saved":true}'));
				}),
		});
		const slot = slotOf(f.ctx, delivery(`k-${randomBytes(4).toString('hex')}`))!;
		follow(f.ctx, hold(slot, answerPlan('n8n-after-run', true)), { workflowData: [[]] });
		f.res.end();
		await flush();
		expect(f.sent).toHaveLength(1);
		expect(f.ended).toEqual([]);
		const [s] = f.sent;
		expect(s.headers[SAVE_HEADER]).toBe(signed(s.body, f.secret));
		expect(JSON.parse(s.body.toString())).toEqual({ node: 'Trigger', keys: [slot.key] });
		release();
		await flush();
		expect(f.ended).toEqual([200]);
	});

	it('the answer goes out when the save request fails', async () => {
		const f = fixture({ answer: async () => Promise.reject(new Error('ECONNREFUSED')) });
		const slot = slotOf(f.ctx, delivery(`k-${randomBytes(4).toString('hex')}`))!;
		follow(f.ctx, hold(slot, answerPlan('n8n-after-run', true)), { workflowData: [[]] });
		f.res.end();
		await flush();
		await flush();
		expect(f.ended).toEqual([200]);
	});

	it('a URL that did not answer is paused, the pause doubling per failure in a row; one warning without a secret; a success ends it', async () => {
		let up = false;
		const f = fixture({
			answer: async () =>
				up ? Buffer.from('{"saved":true}') : Promise.reject(new Error('ECONNREFUSED')),
		});
		let now = Date.now();
		expect(await askToSave(f.ctx, f.url, ['k1'], now)).toBe(false);
		expect(await askToSave(f.ctx, f.url, ['k2'], now + FIRST_PAUSE_MS - 1)).toBe(false);
		expect(f.sent).toHaveLength(1);
		now += FIRST_PAUSE_MS;
		expect(await askToSave(f.ctx, f.url, ['k3'], now)).toBe(false);
		expect(f.sent).toHaveLength(2);
		expect(await askToSave(f.ctx, f.url, ['k4'], now + 2 * FIRST_PAUSE_MS - 1)).toBe(false);
		expect(f.sent).toHaveLength(2);
		expect(f.warnings).toHaveLength(1);
		expect(f.warnings[0]).toContain(f.url);
		expect(f.warnings[0]).not.toContain(f.secret);
		up = true;
		now += 2 * FIRST_PAUSE_MS;
		expect(await askToSave(f.ctx, f.url, ['k5'], now)).toBe(true);
		expect(await askToSave(f.ctx, f.url, ['k6'], now)).toBe(true);
		expect(f.sent).toHaveLength(4);
	});

	it(`the pause grows to at most ${UNREACHABLE_PAUSE_MS / 60000} minutes`, async () => {
		const f = fixture({ answer: async () => Promise.reject(new Error('ETIMEDOUT')) });
		let now = Date.now();
		for (let i = 0; i < 12; i++) {
			await askToSave(f.ctx, f.url, ['k'], now);
			now += UNREACHABLE_PAUSE_MS;
		}
		expect(f.sent).toHaveLength(12);
		await askToSave(f.ctx, f.url, ['k'], now - 1);
		expect(f.sent).toHaveLength(12);
	});

	it('nothing is asked for a failed run, nor where the answer came before the run', async () => {
		const failed = fixture();
		const slot = slotOf(failed.ctx, delivery(`k-${randomBytes(4).toString('hex')}`))!;
		follow(failed.ctx, hold(slot, answerPlan('n8n-after-run', true)), { workflowData: [[]] });
		failed.res.statusCode = 500;
		failed.res.end();
		const early = fixture();
		const other = slotOf(early.ctx, delivery(`k-${randomBytes(4).toString('hex')}`))!;
		follow(early.ctx, hold(other, answerPlan('execute', true)), { workflowData: [[]] });
		early.res.end();
		await flush();
		expect([failed.sent.length, early.sent.length]).toEqual([0, 0]);
		expect([failed.ended, early.ended]).toEqual([[500], [200]]);
	});

	it('a second after a remembered run, one more save request carries the newest keys (any Respond mode)', async () => {
		const f = fixture();
		const first = slotOf(f.ctx, delivery(`k-${randomBytes(4).toString('hex')}`))!;
		follow(f.ctx, hold(first, answerPlan('n8n-when-stored', true)), { workflowData: [[]] });
		f.res.end();
		await sleep(FLUSH_AFTER_MS / 2);
		// a second run within the wait joins the flush, which it does not postpone: one request for both
		const second = slotOf(f.ctx, delivery(`k-${randomBytes(4).toString('hex')}`))!;
		follow(f.ctx, hold(second, answerPlan('execute', true)), { workflowData: [[]] });
		f.res.end();
		expect(f.sent).toHaveLength(0);
		await sleep(FLUSH_AFTER_MS / 2 + 100);
		expect(f.sent).toHaveLength(1);
		const { keys } = JSON.parse(f.sent[0].body.toString()) as { keys: string[] };
		expect(keys.slice(-2)).toEqual([first.key, second.key]);
		expect(f.sent[0].headers[SAVE_HEADER]).toBe(signed(f.sent[0].body, f.secret));
	});

	it('a run that failed asks for no flush', async () => {
		const f = fixture();
		const slot = slotOf(f.ctx, delivery(`k-${randomBytes(4).toString('hex')}`))!;
		follow(f.ctx, hold(slot, answerPlan('n8n-when-stored', true)), { workflowData: [[]] });
		f.res.statusCode = 500;
		f.res.end();
		await sleep(FLUSH_AFTER_MS + 100);
		expect(f.sent).toHaveLength(0);
	});

	it('the receiving trigger keeps the keys in static data, where n8n saves them', async () => {
		const from = fixture();
		const keys = [`a-${randomBytes(4).toString('hex')}`, `b-${randomBytes(4).toString('hex')}`];
		expect(await askToSave(from.ctx, from.url, keys)).toBe(true);
		from.receive(from.sent[0]);
		const taken = await takeSaveRequest(from.ctx);
		expect(taken).toEqual({ keys });
		keepSaved(from.ctx, keys);
		expect(savedKeys(JSON.parse(JSON.stringify(from.staticData))[DEDUPE_KEY])).toEqual(
			expect.arrayContaining(keys),
		);
		const slot = slotOf(from.ctx, delivery(keys[1]))!;
		expect(lookUp(slot).duplicate).toBe(true);
	});

	it('refuses a forged, altered or misaddressed request; a delivery has no save header', async () => {
		const f = fixture();
		await askToSave(f.ctx, f.url, ['k1']);
		const s = f.sent[0];
		const cases: Array<[string, Sent]> = [
			[
				'other secret',
				{ ...s, headers: { [SAVE_HEADER]: signed(s.body, 'another-secret-0123456789') } },
			],
			['altered body', { ...s, body: Buffer.from('{"node":"Trigger","keys":["k2"]}') }],
			['not hex', { ...s, headers: { [SAVE_HEADER]: 'z'.repeat(64) } }],
		];
		const other = Buffer.from('{"node":"Other","keys":["k1"]}');
		cases.push([
			'other node',
			{ ...s, body: other, headers: { [SAVE_HEADER]: signed(other, f.secret) } },
		]);
		const seen: Array<[string, unknown]> = [];
		for (const [name, request] of cases) {
			f.receive(request);
			seen.push([name, await takeSaveRequest(f.ctx)]);
		}
		expect(seen).toEqual(cases.map(([name]) => [name, 'refused']));
		const plain = fixture();
		expect(await takeSaveRequest(plain.ctx)).toBeNull();
	});
});
