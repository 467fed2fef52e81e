'use strict';
// The Consent Flow node inside a real n8n (installed from the packed tarball like a community
// package) against the simulator: a 100-item batch on one token, both client authentication
// methods, a wrong secret, an expired token, Continue On Fail with pairedItem, delete and 404.
// Workflows are Webhook → (Split Out) → Consent Flow; a test POSTs to the webhook and checks the
// answer, the saved execution and what the simulator received.
const { request, waitFor } = require('./lib/http');
const { versions, useN8n, simConfig, simRequests } = require('./lib/suite');
const W = require('./lib/workflows');
const S = require('./lib/scenarios');

const ORG = '923609016';
const REDIRECT = 'https://bank.example.com/loan/thank-you';
const CREATE_PATH = '/consent/api/flow-definitions/sbl';
const API_PREFIX = '/consent/api/';
const NODE = 'Consent Flow';

describe.each(versions())('n8n %s.x: Consent Flow node', (major) => {
	// autoLifecycle off: no webhook events for the flows made here (externalIds use sim:none too).
	const ctx = useN8n(major, { simulator: true, simulatorOptions: { autoLifecycle: false } });
	let seq = 0;
	const nextIds = (count) => Array.from({ length: count }, () => S.nationalId(1000 + seq++));

	/** Where flows would send their events: nothing listens (autoLifecycle is off). */
	const eventsUrl = () => `${ctx.n8n.url}/webhook/sbl-e2e-no-events`;

	function createNode(cred, { continueOnFail = false, options = {} } = {}) {
		return S.packageNode('consentFlow', {
			name: NODE,
			cred,
			continueOnFail,
			parameters: {
				resource: 'flow',
				operation: 'create',
				nationalId: '={{ $json.nationalId }}',
				lastName: '={{ $json.lastName }}',
				organizationId: ORG,
				redirectUrl: REDIRECT,
				webhookUrl: eventsUrl(),
				additionalFields: { externalId: '={{ $json.externalId }}' },
				options,
			},
		});
	}

	function deleteNode(cred, { continueOnFail = false } = {}) {
		return S.packageNode('consentFlow', {
			name: NODE,
			cred,
			continueOnFail,
			parameters: {
				resource: 'flow',
				operation: 'delete',
				flowId: '={{ $json.flowId }}',
				options: {},
			},
		});
	}

	const applicants = (ids, tag = 'x') =>
		ids.map((nationalId, i) => ({
			nationalId,
			lastName: `Nordmann-${i + 1}`,
			externalId: `sim:none:${tag}-${i + 1}`,
		}));

	/** Deploys Webhook → Split Out(body.items) → Consent Flow create and runs it once with `items`. */
	async function createFlows(cred, items, opts = {}) {
		const wf = await S.deployNodeWorkflow(ctx, createNode(cred, opts), {
			fanOut: true,
			prefix: 'cf-create',
		});
		const run = await S.runWorkflow(ctx, wf, { items }, { apiPrefix: API_PREFIX });
		return { wf, ...run };
	}

	test('100 items from the example workflow: one token, 100 flows, one output item with href per input, in order', async () => {
		const { sim, n8n } = ctx;
		const cred = await S.consentCredential(ctx, 'batch');
		const wf = W.loadExample('consent-flow-start.json', {
			credentials: { consentFlowOAuth2Api: cred },
			values: {},
			pathSuffix: W.uniquePath('b'),
		});
		const webhook = wf.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
		const node = wf.nodes.find((n) => n.type === 'n8n-nodes-sbl.consentFlow');
		const created = await n8n.deployWorkflow(wf);
		const ids = nextIds(100);
		const body = {
			organizationId: ORG,
			redirectUrl: REDIRECT,
			webhookUrl: eventsUrl(),
			applicants: ids.map((nationalId, i) => ({
				nationalId,
				lastName: `Batch-${i + 1}`,
				applicationId: `sim:none:batch-${i + 1}`,
			})),
		};
		const started = Date.now();
		const { res, tokenCalls, apiCalls, exec } = await S.runWorkflow(
			ctx,
			{ id: created.id, path: webhook.parameters.path },
			body,
			{ apiPrefix: API_PREFIX },
		);
		const ms = Date.now() - started;
		console.log(`n8n ${n8n.version}: 100 consent flows created in ${ms} ms`);

		expect(res.status).toBe(200);
		expect(Array.isArray(res.json)).toBe(true);
		expect(res.json).toHaveLength(100);
		// Exactly one token for the whole batch (n8n stores it in the credential after item 1).
		expect(tokenCalls.map((t) => t.status)).toEqual([200]);
		expect(tokenCalls[0]).toMatchObject({
			authScheme: 'Basic',
			authClientId: sim.clients.consent.clientId,
		});
		// 100 creates, all with that token, each applicant exactly once (Concurrent Requests: the
		// service may receive them in any order; the first item goes alone, so it arrives first).
		expect(apiCalls).toHaveLength(100);
		expect(
			apiCalls.every((c) => c.method === 'POST' && c.path === CREATE_PATH && c.status === 201),
		).toBe(true);
		expect(new Set(apiCalls.map((c) => c.tokenJti)).size).toBe(1);
		expect(apiCalls.map((c) => c.body.nationalId).sort()).toEqual([...ids].sort());
		expect(apiCalls[0].body).toEqual({
			nationalId: ids[0],
			lastName: 'Batch-1',
			organizationId: ORG,
			redirectUrl: REDIRECT,
			webhookUrl: eventsUrl(),
			externalId: 'sim:none:batch-1',
		});

		// Output: one item per applicant, in order, each with the consent page href.
		res.json.forEach((flow, i) => {
			expect(flow).toMatchObject({
				nationalId: ids[i],
				coveredBy: ORG,
				externalId: `sim:none:batch-${i + 1}`,
				requestStatus: 'Unopened',
			});
			expect(flow.href).toBe(`${sim.consentBaseUrl}/flows/${flow.id}`);
		});
		expect(new Set(res.json.map((f) => f.id)).size).toBe(100);
		// The same items in the saved execution, each paired with its input item.
		expect(exec.status).toBe('success');
		const items = S.nodeItems(exec, node.name);
		expect(items.map((it) => it.json.id)).toEqual(res.json.map((f) => f.id));
		expect(items.map((it) => it.pairedItem)).toEqual(ids.map((_, i) => ({ item: i })));
		// The simulator holds the 100 flows (scenario "none": no events).
		const list = (await request('GET', `${sim.url}/__sim/flows`)).json.flows;
		const mine = list.filter((f) => res.json.some((r) => r.id === f.id));
		expect(mine).toHaveLength(100);
		expect(
			mine.every((f) => f.scenario === 'none' && f.clientId === sim.clients.consent.clientId),
		).toBe(true);
		// A second batch reuses the stored token.
		const again = await S.runWorkflow(
			ctx,
			{ id: created.id, path: webhook.parameters.path },
			{ ...body, applicants: body.applicants.slice(0, 2) },
			{ apiPrefix: API_PREFIX },
		);
		expect(again.res.status).toBe(200);
		expect(again.tokenCalls).toHaveLength(0);
		expect(again.apiCalls.map((c) => c.tokenJti)).toEqual([
			apiCalls[0].tokenJti,
			apiCalls[0].tokenJti,
		]);
	}, 120000);

	test.each([
		['header', 'Basic'],
		['body', null],
	])(
		'client authentication "%s" works with the node (token request auth scheme %s)',
		async (authentication, scheme) => {
			const { sim } = ctx;
			const cred = await S.consentCredential(ctx, `auth-${authentication}`, { authentication });
			const ids = nextIds(1);
			const { res, tokenCalls, apiCalls } = await createFlows(
				cred,
				applicants(ids, `auth-${authentication}`),
			);
			expect(res.status).toBe(200);
			expect(res.json).toHaveLength(1);
			expect(res.json[0].href).toMatch(new RegExp(`^${sim.consentBaseUrl}/flows/`));
			expect(tokenCalls).toHaveLength(1);
			expect(tokenCalls[0].status).toBe(200);
			expect(tokenCalls[0].authScheme).toBe(scheme);
			if (scheme === 'Basic') {
				expect(tokenCalls[0].authClientId).toBe(sim.clients.consent.clientId);
				expect(tokenCalls[0].body).toEqual({ grant_type: 'client_credentials', scope: 'sbl' });
			} else {
				expect(tokenCalls[0].body).toEqual({
					grant_type: 'client_credentials',
					client_id: sim.clients.consent.clientId,
					client_secret: '[redacted]',
					scope: 'sbl',
				});
			}
			expect(apiCalls.map((c) => [c.path, c.status, c.authScheme, c.tokenScope])).toEqual([
				[CREATE_PATH, 201, 'Bearer', 'sbl'],
			]);
		},
	);

	test("a wrong client secret fails with the node's message about client ID/secret, and the secret appears nowhere", async () => {
		const { n8n } = ctx;
		const wrong = `wrong-secret-${Date.now()}-Vq8`;
		const cred = await S.consentCredential(ctx, 'wrong-secret', { clientSecret: wrong });
		const { res, tokenCalls, apiCalls, exec } = await createFlows(
			cred,
			applicants(nextIds(2), 'wrong'),
		);

		expect(res.status).toBe(500);
		expect(tokenCalls.map((t) => t.status)).toEqual([401]);
		expect(apiCalls).toHaveLength(0);
		expect(exec.status).toBe('error');
		const err = W.executionError(exec);
		expect(err.message).toBe(
			'Item 1: The identity provider refused the client credentials (invalid_client)',
		);
		// what decides whether a token can be had, named (issue 48): Realm first
		expect(err.description).toMatch(/^Check in the Consent Flow OAuth2 API credential: Realm/);
		for (const field of ['Client ID and Client Secret', 'Environment', 'Identity Provider URL'])
			expect(err.description).toContain(field);
		expect(err.description).toMatch(/Client Authentication/);
		// The secret is nowhere: not in the execution, not in the HTTP answer, not in n8n's logs.
		expect(S.textOf(exec)).not.toContain(wrong);
		expect(res.text).not.toContain(wrong);
		expect(n8n.logs()).not.toContain(wrong);
		expect(S.textOf(exec)).not.toContain(ctx.sim.clients.consent.clientSecret);
	});

	test("an expired token is replaced once and the run succeeds; a token inside n8n's 60 s buffer is still reused", async () => {
		const { n8n } = ctx;
		const lifetime = 5;
		await simConfig(ctx.sim, { tokenLifetimeSeconds: lifetime });
		try {
			const cred = await S.consentCredential(ctx, 'expiry');
			const wf = await S.deployNodeWorkflow(ctx, createNode(cred), {
				fanOut: true,
				prefix: 'cf-expiry',
			});
			const first = await S.runWorkflow(
				ctx,
				wf,
				{ items: applicants(nextIds(1), 'exp1') },
				{ apiPrefix: API_PREFIX },
			);
			expect(first.res.status).toBe(200);
			expect(first.tokenCalls.map((t) => t.status)).toEqual([200]);
			expect(first.apiCalls.map((c) => c.status)).toEqual([201]);
			const oldJti = first.apiCalls[0].tokenJti;

			// The token lives `lifetime` s from its issue (the simulator checks to the millisecond).
			const issued = Date.parse(first.tokenCalls[0].time);
			await waitFor(() => Date.now() > issued + lifetime * 1000 + 500, {
				timeoutMs: (lifetime + 5) * 1000,
				intervalMs: 100,
				what: 'token expiry',
			});

			const second = await S.runWorkflow(
				ctx,
				wf,
				{ items: applicants(nextIds(2), 'exp2') },
				{ apiPrefix: API_PREFIX },
			);
			expect(second.res.status).toBe(200);
			expect(second.res.json).toHaveLength(2);
			expect(second.res.json.every((f) => typeof f.href === 'string')).toBe(true);
			// Both versions (2.41.1 and 1.123.81) notice the expiry reactively: the first create is
			// refused with 401 (old token), n8n fetches ONE new token and sends it again; the second
			// item uses the new token. (n8n 2.41's 60 s expiry buffer only applies to non-401
			// "token expired" status codes with skipRefreshWhileTokenIsFresh; see the next part.)
			expect(second.tokenCalls.map((t) => t.status)).toEqual([200]);
			const newJti = second.apiCalls.find((c) => c.status === 201).tokenJti;
			expect(newJti).not.toBe(oldJti);
			expect(second.apiCalls.map((c) => [c.status, c.tokenJti === oldJti ? 'old' : 'new'])).toEqual(
				[
					[401, 'old'],
					[201, 'new'],
					[201, 'new'],
				],
			);
			// Order: the refused create, then the token request, then the two creates.
			expect(
				second.log.map((r) => (S.TOKEN_PATH_RE.test(r.path) ? 'token' : `${r.method} ${r.status}`)),
			).toEqual(['POST 401', 'token', 'POST 201', 'POST 201']);
			// Totals over both runs: 2 token requests, 1 + 3 API requests, 3 flows created.
			expect(first.tokenCalls.length + second.tokenCalls.length).toBe(2);
			expect(first.apiCalls.length + second.apiCalls.length).toBe(4);
			console.log(
				`n8n ${n8n.version}: expired token → ${second.log.map((r) => (S.TOKEN_PATH_RE.test(r.path) ? 'token' : r.status)).join(', ')}`,
			);

			// A token that expires within 60 s but has not expired is reused (no proactive refresh).
			await simConfig(ctx.sim, { tokenLifetimeSeconds: 30 });
			const cred30 = await S.consentCredential(ctx, 'expiry-30s');
			const wf30 = await S.deployNodeWorkflow(ctx, createNode(cred30), {
				fanOut: true,
				prefix: 'cf-exp30',
			});
			const a = await S.runWorkflow(
				ctx,
				wf30,
				{ items: applicants(nextIds(1), 'e30a') },
				{ apiPrefix: API_PREFIX },
			);
			const b = await S.runWorkflow(
				ctx,
				wf30,
				{ items: applicants(nextIds(1), 'e30b') },
				{ apiPrefix: API_PREFIX },
			);
			expect([a.res.status, b.res.status]).toEqual([200, 200]);
			expect(a.tokenCalls).toHaveLength(1);
			expect(b.tokenCalls).toHaveLength(0);
			expect(b.apiCalls.map((c) => [c.status, c.tokenJti])).toEqual([
				[201, a.apiCalls[0].tokenJti],
			]);
		} finally {
			await simConfig(ctx.sim, { tokenLifetimeSeconds: 3600 });
		}
	}, 60000);

	test('Continue On Fail: a mixed create batch gives one output item per input, in order, with pairedItem', async () => {
		const [a, b] = nextIds(2);
		const bad = S.nationalIdWithWrongControl(seq++);
		const items = [
			{ nationalId: a, lastName: 'Valid-A', externalId: 'sim:none:mix-1' },
			{ nationalId: bad, lastName: 'Invalid', externalId: 'sim:none:mix-2' },
			{ nationalId: b, lastName: 'Valid-B', externalId: 'sim:none:mix-3' },
		];
		const { res, apiCalls, exec } = await createFlows(
			await S.consentCredential(ctx, 'mixed'),
			items,
			{ continueOnFail: true },
		);
		expect(res.status).toBe(200);
		expect(exec.status).toBe('success');
		const out = S.nodeItems(exec, NODE);
		expect(out).toHaveLength(3);
		expect(out.map((it) => it.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(out[0].json).toMatchObject({
			nationalId: a,
			externalId: 'sim:none:mix-1',
			href: expect.stringContaining('/consent/flows/'),
		});
		expect(out[2].json).toMatchObject({
			nationalId: b,
			externalId: 'sim:none:mix-3',
			href: expect.stringContaining('/consent/flows/'),
		});
		expect(out[1].json.href).toBeUndefined();
		expect(out[1].json.error).toBe(
			'Item 2: "National ID" has wrong check digits (digits 10–11 fail the mod-11 control)',
		);
		expect(out[1].json.field).toBe('nationalId');
		expect(out[1].json.description).toMatch(/Got 11 characters after removing spaces/);
		// The invalid national ID itself is not repeated in the error.
		expect(S.textOf(out[1].json)).not.toContain(bad);
		expect(res.json).toEqual(out.map((it) => it.json));
		// Only the two valid items were sent.
		expect(apiCalls.map((c) => [c.path, c.status, c.body.nationalId])).toEqual([
			[CREATE_PATH, 201, a],
			[CREATE_PATH, 201, b],
		]);
	});

	test('delete: flows are deleted, an unknown flow gives "no such flow" (404) — per item with Continue On Fail, as the run\'s error without', async () => {
		const { sim } = ctx;
		const cred = await S.consentCredential(ctx, 'delete');
		const made = await createFlows(cred, applicants(nextIds(2), 'del'));
		expect(made.res.status).toBe(200);
		const [flowA, flowB] = made.res.json.map((f) => f.id);
		const unknown = `no-such-flow-${Date.now()}`;

		const wf = await S.deployNodeWorkflow(ctx, deleteNode(cred, { continueOnFail: true }), {
			fanOut: true,
			prefix: 'cf-del',
		});
		const del = await S.runWorkflow(
			ctx,
			wf,
			{ items: [{ flowId: flowA }, { flowId: unknown }, { flowId: flowB }] },
			{ apiPrefix: API_PREFIX },
		);
		expect(del.res.status).toBe(200);
		const out = S.nodeItems(del.exec, NODE);
		expect(out.map((it) => it.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(out[0].json).toEqual({ flowId: flowA, deleted: true, id: flowA });
		expect(out[2].json).toEqual({ flowId: flowB, deleted: true, id: flowB });
		expect(out[1].json).toMatchObject({
			error: `Item 2: No consent flow "${unknown}" exists (404) — it may already be deleted`,
			httpCode: 404,
			field: 'flowId',
		});
		expect(out[1].json.description).toMatch(/^Check the Flow ID/);
		// the first item goes alone; the others run concurrently and may reach the service in any order
		const calls = del.apiCalls.map((c) => [c.method, c.path, c.status]);
		expect(calls[0]).toEqual(['DELETE', `/consent/api/flows/${flowA}`, 200]);
		expect(calls.slice(1).sort()).toEqual(
			[
				['DELETE', `/consent/api/flows/${unknown}`, 404],
				['DELETE', `/consent/api/flows/${flowB}`, 200],
			].sort(),
		);
		expect(calls).toHaveLength(3);
		for (const id of [flowA, flowB]) {
			const f = await request('GET', `${sim.url}/__sim/flows/${id}`);
			expect(f.status).toBe(200);
			expect(f.json.flow.deleted).toBeTruthy();
		}

		// Without Continue On Fail: deleting A again (already deleted) fails the run with that message.
		const strict = await S.deployNodeWorkflow(ctx, deleteNode(cred), {
			fanOut: true,
			prefix: 'cf-del-strict',
		});
		const again = await S.runWorkflow(
			ctx,
			strict,
			{ items: [{ flowId: flowA }] },
			{ apiPrefix: API_PREFIX },
		);
		expect(again.res.status).toBe(500);
		expect(again.exec.status).toBe('error');
		const err = W.executionError(again.exec);
		expect(err.message).toBe(
			`Item 1: No consent flow "${flowA}" exists (404) — it may already be deleted`,
		);
		expect(String(err.httpCode)).toBe('404');
		// 404 is not retried: one DELETE.
		expect(again.apiCalls.map((c) => c.status)).toEqual([404]);
		const since = await simRequests(sim, { pathPrefix: `/consent/api/flows/${flowA}` });
		expect(since.map((r) => r.status)).toEqual([200, 404]);
	}, 120000);
});
