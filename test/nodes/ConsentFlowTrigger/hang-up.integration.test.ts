/**
 * Issue 41: a delivery's fate follows its execution, not its connection. The sender (a proxy's
 * timeout, a load balancer, the service's own client) hangs up at several moments; every delivery
 * runs exactly once, and the service's next copy after the run is answered 2xx. Expected from the
 * issue's rule; n8n's side (it ends the response after the run also when the sender is gone) is
 * the harness's, as n8n 2.41.1's WebhookRequestHandler does (res.json / res.send, no socket check).
 */
import { sleep } from 'n8n-workflow';
import { DEDUPE_KEY } from '../../../nodes/ConsentFlowTrigger/dedupe';
import { envelope, nextId, postSigned, savedKeys, sign, SIGNING_KEY } from './helpers';
import { postAndHangUp } from './http-harness';
import { useTriggerHarness } from './trigger-harness';

const harness = useTriggerHarness();

function deferred(): { promise: Promise<void>; resolve: () => void } {
	let resolve!: () => void;
	const promise = new Promise<void>((r) => (resolve = r));
	return { promise, resolve };
}

async function until(check: () => boolean): Promise<void> {
	for (let i = 0; i < 400 && !check(); i++) await sleep(5);
	expect(check()).toBe(true);
}

const LAST_NODE = { respond: 'lastNode' };
const signed = (body: string, secret = SIGNING_KEY) => ({
	'x-acme-sbl-signature': sign(body, secret),
});

describe('When the Workflow Finishes: the sender hangs up', () => {
	it.each([
		['right after sending, before the node listens', 'before'],
		['while the workflow runs', 'during'],
	] as const)(
		'%s: it runs once; the next copy is a duplicate once the run succeeded',
		async (_, moment) => {
			const hungUp = deferred();
			const h = await harness({
				parameters: LAST_NODE,
				failWorkflow: async () => (await hungUp.promise, false),
			});
			const body = envelope('consent.accepted', { webhookId: nextId() });
			const gone = postAndHangUp(h.url, body, signed(body), async () => {
				if (moment === 'during') await until(() => h.deliveries.length === 1);
				hungUp.resolve();
			});
			await gone;
			await until(() => h.executions.length === 1);
			await sleep(20);
			const copy = await postSigned(h.url, body);
			expect([copy.status, copy.json]).toMatchObject([200, { status: 'duplicate' }]);
			expect(h.executions).toHaveLength(1);
		},
	);

	it('the run fails after the sender hung up: the key is let go, the next copy runs, then copies are duplicates', async () => {
		let runs = 0;
		const h = await harness({
			parameters: LAST_NODE,
			failWorkflow: async () => (await sleep(30), ++runs === 1),
		});
		const body = envelope('consent.data', { webhookId: nextId() });
		await postAndHangUp(h.url, body, signed(body), async () => undefined);
		await until(() => h.executions.length === 1);
		await sleep(20);
		expect((await postSigned(h.url, body)).status).toBe(200);
		expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'duplicate' });
		expect(h.executions.map((e) => e.failed)).toEqual([true, false]);
	});

	it('a copy while the first still runs is held (409), never run', async () => {
		const release = deferred();
		const h = await harness({
			parameters: LAST_NODE,
			failWorkflow: async () => (await release.promise, false),
		});
		const body = envelope('consent.accepted', { webhookId: nextId() });
		await postAndHangUp(h.url, body, signed(body), async () =>
			until(() => h.deliveries.length === 1),
		);
		expect((await postSigned(h.url, body)).status).toBe(409);
		release.resolve();
		await until(() => h.executions.length === 1);
		await sleep(20);
		expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'duplicate' });
		expect(h.executions).toHaveLength(1);
	});
});

describe('Immediately: the sender hangs up before n8n stored (2.x) or execute() answered (1.x)', () => {
	it.each([2, 1] as const)(
		'n8n %s.x: it runs once; the next copy is a duplicate',
		async (n8nMajor) => {
			const hungUp = deferred();
			const h = await harness({ n8nMajor, beforeStore: async () => hungUp.promise });
			const body = envelope('consent.accepted', { webhookId: nextId() });
			await postAndHangUp(h.url, body, signed(body), async () => {
				await until(() => h.deliveries.length === 1);
				hungUp.resolve();
			});
			await until(() => h.executions.length === 1);
			await sleep(20);
			expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'duplicate' });
			expect(h.executions).toHaveLength(1);
		},
	);
});

describe('one key per delivery, whoever signed it (rotation)', () => {
	const PREVIOUS = 'previous-signing-key-0123456789';

	it('a body without a signed id, re-signed with the previous secret, runs once; no saved key is a signature', async () => {
		const h = await harness({
			credentials: { secret: SIGNING_KEY, previousSecret: PREVIOUS, signatureHeader: '' },
		});
		const body = JSON.stringify({ event: 'consent.accepted', payload: { flow: `f-${nextId()}` } });
		expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'emitted' });
		expect((await postSigned(h.url, body, { secret: PREVIOUS })).json).toMatchObject({
			status: 'duplicate',
		});
		expect(h.executions).toHaveLength(1);
		const saved = JSON.stringify(h.db.read());
		for (const secret of [SIGNING_KEY, PREVIOUS]) expect(saved).not.toContain(sign(body, secret));
		const node = (h.db.read() ?? {})['node:Consent Flow Trigger'] as Record<string, unknown>;
		// one key per active secret, neither a signature
		expect(savedKeys(node[DEDUPE_KEY])).toEqual([
			expect.stringMatching(/^~k:[0-9a-f]{64}$/),
			expect.stringMatching(/^~k:[0-9a-f]{64}$/),
		]);
	});
});
